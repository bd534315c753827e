package tools

import (
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// skippedElements hold no text a reader sees.
var skippedElements = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Svg: true,
	atom.Iframe: true, atom.Object: true, atom.Head: true, atom.Canvas: true, atom.Select: true,
}

// blockElements start a new line.
var blockElements = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Br: true, atom.Li: true, atom.Tr: true, atom.Section: true,
	atom.Article: true, atom.Header: true, atom.Footer: true, atom.Main: true, atom.Nav: true, atom.Aside: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Pre: true, atom.Blockquote: true, atom.Table: true, atom.Ul: true, atom.Ol: true, atom.Dl: true,
	atom.Dt: true, atom.Dd: true, atom.Hr: true, atom.Form: true, atom.Figure: true, atom.Figcaption: true,
	atom.Address: true, atom.Details: true, atom.Summary: true,
}

// htmlText extracts the title and the readable text of an HTML page: no
// scripts, styles or markup, one line per block, list items marked "- ".
func htmlText(r io.Reader) (title, text string) {
	z := html.NewTokenizer(r)
	var b, t strings.Builder
	skip := 0 // depth inside skipped elements
	pre := 0  // depth inside <pre>, where line breaks are kept
	inTitle := false
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.Join(strings.Fields(t.String()), " "), tidyLines(b.String())
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			switch {
			case tok.DataAtom == atom.Title:
				inTitle = true
			case tok.DataAtom == atom.Pre:
				pre++
				b.WriteString("\n")
			case skippedElements[tok.DataAtom] && tok.Type == html.StartTagToken:
				skip++
			case tok.DataAtom == atom.Li && skip == 0:
				b.WriteString("\n- ")
			case blockElements[tok.DataAtom] && skip == 0:
				b.WriteString("\n")
			case tok.DataAtom == atom.Td || tok.DataAtom == atom.Th:
				b.WriteString(" ")
			}
		case html.EndTagToken:
			tok := z.Token()
			switch {
			case tok.DataAtom == atom.Title:
				inTitle = false
			case tok.DataAtom == atom.Pre:
				pre = max(pre-1, 0)
				b.WriteString("\n")
			case skippedElements[tok.DataAtom]:
				skip = max(skip-1, 0)
			case blockElements[tok.DataAtom]:
				b.WriteString("\n")
			}
		case html.TextToken:
			switch {
			case inTitle:
				t.Write(z.Text())
			case skip == 0 && pre > 0:
				b.Write(z.Text())
			case skip == 0: // outside <pre> a line break in the source is a space
				b.WriteString(strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(string(z.Text())))
			}
		}
	}
}

// tidyLines collapses the spaces within lines and drops empty lines.
func tidyLines(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if line = strings.Join(strings.Fields(line), " "); line != "" && line != "-" {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
