package present

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdown parses the model's Markdown (CommonMark with GitHub's
// strikethrough and tables). A parser is safe for concurrent use.
var markdown = goldmark.New(goldmark.WithExtensions(extension.Strikethrough, extension.Table)).Parser()

// RenderMarkdown turns Markdown into the HTML of Telegram's HTML parse mode:
// bold, italic, strikethrough, inline code, code blocks with their language,
// links, lists, quotes and headings (as bold). Everything else is text,
// escaped, so the model's <, > and & show as written. Unfinished Markdown (an
// answer still being streamed) renders too: an open code block runs to the
// end, an unclosed ** stays as typed. The shown text is never longer than the
// Markdown, so a part that fits Telegram's limit as Markdown fits rendered.
func RenderMarkdown(md string) string {
	src := []byte(md)
	r := &renderer{src: src}
	r.block(markdown.Parse(text.NewReader(src)), 0)
	return strings.TrimSpace(r.out.String())
}

type renderer struct {
	src []byte
	out strings.Builder
}

// escapeText escapes what Telegram's HTML reserves; escapeAttr, in a
// quoted attribute, the quote too.
var (
	escapeText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	escapeAttr = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
)

func (r *renderer) write(s string)  { r.out.WriteString(s) }
func (r *renderer) escape(s []byte) { escapeText.WriteString(&r.out, string(s)) }

// blocks renders the children of n, separated as in the source: a blank
// line where it had one, a line break otherwise.
func (r *renderer) blocks(n ast.Node, depth int) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c != n.FirstChild() {
			if c.HasBlankPreviousLines() {
				r.write("\n\n")
			} else {
				r.write("\n")
			}
		}
		r.block(c, depth)
	}
}

// block renders one block node; depth is the nesting of lists.
func (r *renderer) block(n ast.Node, depth int) {
	switch n := n.(type) {
	case *ast.Document, *ast.ListItem:
		r.blocks(n, depth)
	case *ast.Paragraph, *ast.TextBlock:
		r.inlines(n)
	case *ast.Heading:
		r.write("<b>")
		r.inlines(n)
		r.write("</b>")
	case *ast.ThematicBreak:
		r.write("———")
	case *ast.FencedCodeBlock:
		if lang := n.Language(r.src); len(lang) > 0 {
			r.write(`<pre><code class="language-` + escapeAttr.Replace(string(lang)) + `">`)
			r.lines(n)
			r.write("</code></pre>")
		} else {
			r.write("<pre>")
			r.lines(n)
			r.write("</pre>")
		}
	case *ast.CodeBlock:
		r.write("<pre>")
		r.lines(n)
		r.write("</pre>")
	case *ast.HTMLBlock: // raw HTML from the model is shown, not obeyed
		r.lines(n)
		if n.HasClosure() {
			r.escape(n.ClosureLine.Value(r.src))
		}
	case *ast.Blockquote:
		r.write("<blockquote>")
		r.blocks(n, depth)
		r.write("</blockquote>")
	case *ast.List:
		r.list(n, depth)
	case *east.Table:
		r.table(n)
	default:
		r.blocks(n, depth)
	}
}

// list renders items one per line, "• " or "N. " before each, nested lists
// indented.
func (r *renderer) list(n *ast.List, depth int) {
	number := n.Start
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		if item != n.FirstChild() {
			r.write("\n")
		}
		r.write(strings.Repeat("    ", depth))
		if n.IsOrdered() {
			r.write(fmt.Sprintf("%d%c ", number, n.Marker))
			number++
		} else {
			r.write("• ")
		}
		r.block(item, depth+1)
	}
}

// table renders each row as its cells joined by " | ".
func (r *renderer) table(n *east.Table) {
	for row := n.FirstChild(); row != nil; row = row.NextSibling() {
		if row != n.FirstChild() {
			r.write("\n")
		}
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			if cell != row.FirstChild() {
				r.write(" | ")
			}
			r.inlines(cell)
		}
	}
}

// lines writes a code or HTML block's lines, escaped.
func (r *renderer) lines(n ast.Node) {
	var b bytes.Buffer
	for i := 0; i < n.Lines().Len(); i++ {
		line := n.Lines().At(i)
		b.Write(line.Value(r.src))
	}
	r.escape(bytes.TrimRight(b.Bytes(), "\n"))
}

// inlines renders the inline children of n.
func (r *renderer) inlines(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.inline(c)
	}
}

func (r *renderer) inline(n ast.Node) {
	switch n := n.(type) {
	case *ast.Text:
		r.escape(resolve(n.Segment.Value(r.src)))
		if n.SoftLineBreak() || n.HardLineBreak() {
			r.write("\n")
		}
	case *ast.String:
		r.escape(n.Value)
	case *ast.CodeSpan:
		r.write("<code>")
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				r.escape(t.Segment.Value(r.src)) // no escapes inside code
			}
		}
		r.write("</code>")
	case *ast.Emphasis:
		tag := "i"
		if n.Level >= 2 {
			tag = "b"
		}
		r.write("<" + tag + ">")
		r.inlines(n)
		r.write("</" + tag + ">")
	case *east.Strikethrough:
		r.write("<s>")
		r.inlines(n)
		r.write("</s>")
	case *ast.Link:
		r.link(string(n.Destination), n)
	case *ast.Image:
		r.link(string(n.Destination), n)
	case *ast.AutoLink:
		r.escape(n.Label(r.src)) // Telegram makes links of URLs by itself
	case *ast.RawHTML:
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			r.escape(seg.Value(r.src))
		}
	default:
		r.inlines(n)
	}
}

// link renders a link whose address Telegram accepts; any other stays text.
func (r *renderer) link(dest string, n ast.Node) {
	u, err := url.Parse(dest)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "tg" && u.Scheme != "mailto") {
		r.inlines(n)
		return
	}
	r.write(`<a href="` + escapeAttr.Replace(dest) + `">`)
	r.inlines(n)
	r.write("</a>")
}

// resolve applies Markdown's backslash escapes and character references.
func resolve(b []byte) []byte {
	return util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(b)))
}

// SplitMarkdown cuts Markdown into parts of at most limit UTF-16 units, like
// SplitMessage, keeping each part valid Markdown: a code block cut in two is
// closed at the end of one part and opened again, with its language, at the
// start of the next.
//
// Rendering can make a part longer than its Markdown (list indentation,
// table separators), so each part is measured as Telegram will count it,
// after rendering, and split again until it fits.
func SplitMarkdown(md string, limit int) []string {
	var out []string
	for _, part := range splitFenced(md, limit) {
		out = append(out, fitRendered(part, limit)...)
	}
	return out
}

// fitRendered splits part, already within limit as Markdown, until every
// piece fits limit once rendered. A piece that cannot shrink further is
// left as it is: sending falls back to its plain text, which fits.
func fitRendered(part string, limit int) []string {
	if RenderedLen(part) <= limit || utf16Len(part) <= 2*fenceReserve {
		return []string{part}
	}
	smaller := splitFenced(part, utf16Len(part)/2+fenceReserve)
	if len(smaller) < 2 {
		return smaller
	}
	var out []string
	for _, p := range smaller {
		out = append(out, fitRendered(p, limit)...)
	}
	return out
}

// RenderedLen is how long md is once rendered, as Telegram counts a
// message: UTF-16 units of the text, without the HTML tags.
func RenderedLen(md string) int { return visibleLen(RenderMarkdown(md)) }

// visibleLen counts the UTF-16 units of the text of Telegram HTML: tags
// left out, each entity one character.
func visibleLen(html string) int {
	n := 0
	for i := 0; i < len(html); {
		switch html[i] {
		case '<':
			end := strings.IndexByte(html[i:], '>')
			if end < 0 {
				return n + utf16Len(html[i:])
			}
			i += end + 1
		case '&':
			end := strings.IndexByte(html[i:], ';')
			if end < 0 || end > 8 {
				n++
				i++
				continue
			}
			n++
			i += end + 1
		default:
			r, size := utf8.DecodeRuneInString(html[i:])
			n += utf16.RuneLen(r)
			i += size
		}
	}
	return n
}

// fenceReserve is room for the code fences splitFenced adds; an opening
// line is cut to 32 bytes.
const fenceReserve = 40

// splitFenced splits md by its source length, closing a code block a cut
// falls in and opening it again in the next part.
func splitFenced(md string, limit int) []string {
	parts := SplitMessage(md, limit-fenceReserve)
	reopen := "" // the fence line of a block the previous part left open
	for i, part := range parts {
		if reopen != "" {
			part = reopen + "\n" + part
		}
		if reopen = openFence(part); reopen != "" {
			part += "\n" + fenceMarker(reopen)
		}
		parts[i] = part
	}
	return parts
}

// openFence returns the opening line of the code block that md leaves open
// (cut to 32 bytes), or "" when every block is closed.
func openFence(md string) string {
	open := ""
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if len(line)-len(trimmed) > 3 {
			continue // indented: code, not a fence
		}
		marker := fenceMarker(trimmed)
		switch {
		case open == "" && marker != "":
			open = trimmed
		case open != "" && marker != "" && marker[0] == open[0] && len(marker) >= len(fenceMarker(open)) &&
			strings.TrimSpace(trimmed[len(marker):]) == "":
			open = ""
		}
	}
	if len(open) > 32 {
		open = fenceMarker(open)
	}
	return open
}

// fenceMarker returns the run of ``` or ~~~ (three or more) that line
// starts with, or "".
func fenceMarker(line string) string {
	if len(line) < 3 || (line[0] != '`' && line[0] != '~') {
		return ""
	}
	n := 0
	for n < len(line) && line[n] == line[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return line[:n]
}
