package filetext

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// Bounds of the page tree: real trees are a few levels deep (a balanced
// tree of a million pages is about ten), so a deeper one, or one with far
// more nodes than the pages read, loops (a page tree whose child is itself).
const (
	maxPDFPages  = 2000
	maxTreeDepth = 64
	maxTreeNodes = 4 * maxPDFPages
)

// wordGap is the move between two strings of a TJ (in thousandths of the
// font size) past which they are two words: a letter's kerning is a few
// tens, a space about 250.
const wordGap = 180

// errEnough stops the reading once the text has maxRunes runes.
var errEnough = errors.New("enough text")

// writePDFText writes the text of the PDF data to w page by page, at most
// maxRunes runes (all of it when 0), and tells whether there was more. It
// runs in the parser process (child.go): what it cannot bound itself
// (the memory a single huge string takes, the time a stream takes to
// decompress) the process's limits bound.
//
// It walks the page tree itself rather than through the PDF reader's
// Page(i), which starts from the root for every page (slow on long
// documents) and follows a tree that loops for ever; and it bounds the
// text while reading a page, not between pages: one page can show the
// same compressed stream hundreds of times.
func writePDFText(w io.Writer, data []byte, maxRunes int) (cut bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			if e, ok := p.(error); ok && errors.Is(e, errEnough) {
				return
			}
			err = fmt.Errorf("malformed PDF: %v", p)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return false, fmt.Errorf("read PDF: %w", err)
	}
	out := &textOut{w: bufio.NewWriter(w), left: maxRunes, limited: maxRunes > 0}
	defer out.w.Flush()
	tree := pageTree{visit: out.page}
	err = tree.walk(r.Trailer().Key("Root").Key("Pages"), pdf.Value{}, 0)
	switch {
	case errors.Is(err, errEnough):
		return true, nil
	case err != nil:
		return false, err
	}
	return false, nil
}

// pageTree walks the pages in order, each with the resources it inherits.
type pageTree struct {
	nodes int
	pages int
	visit func(page, resources pdf.Value) error
}

func (t *pageTree) walk(node, resources pdf.Value, depth int) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("the page tree is deeper than %d levels (it may loop)", maxTreeDepth)
	}
	if t.nodes++; t.nodes > maxTreeNodes {
		return fmt.Errorf("the page tree has more than %d nodes (it may loop)", maxTreeNodes)
	}
	if own := node.Key("Resources"); !own.IsNull() {
		resources = own
	}
	kids := node.Key("Kids")
	if node.Key("Type").Name() != "Pages" && (node.Key("Type").Name() == "Page" || kids.Kind() != pdf.Array) {
		if t.pages++; t.pages > maxPDFPages {
			return errEnough // the pages past the bound are left out, as text past maxRunes is
		}
		return t.visit(node, resources)
	}
	for i := 0; i < kids.Len(); i++ {
		if err := t.walk(kids.Index(i), resources, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// textOut writes pages' text, each trimmed, with a blank line between
// pages that have text, at most left runes when limited.
type textOut struct {
	w       *bufio.Writer
	left    int
	limited bool
	pages   int // pages written
}

// page writes the text of one page: the text-showing operators of its
// content streams, decoded by the fonts they name. A page's text is
// gathered up to the runes left, then trimmed and written.
func (o *textOut) page(page, resources pdf.Value) (err error) {
	contents := page.Key("Contents")
	if contents.IsNull() {
		return nil
	}
	fonts := resources.Key("Font")
	encoders := map[string]pdf.TextEncoding{}
	var enc pdf.TextEncoding = rawText{}
	var b strings.Builder
	runes, full := 0, false
	show := func(s string) {
		for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
			if runes == 0 && unicode.IsSpace(r) {
				continue // a page's leading space is trimmed, and costs nothing of the bound
			}
			if o.limited && runes >= o.left {
				full = true
				panic(errEnough) // stops Interpret mid-stream
			}
			b.WriteRune(r)
			runes++
		}
	}
	func() {
		defer func() {
			if p := recover(); p != nil {
				if e, ok := p.(error); !ok || !errors.Is(e, errEnough) {
					err = fmt.Errorf("malformed PDF page: %v", p)
				}
			}
		}()
		pdf.Interpret(contents, func(stk *pdf.Stack, op string) {
			args := popArgs(stk)
			switch op {
			case "BT", "T*": // a text object or a line starts
				show("\n")
			case "Td", "TD": // moves to a new line when it moves down or up
				if len(args) == 2 && args[1].Float64() != 0 {
					show("\n")
				}
			case "Tf": // selects a font: its encoding decodes what follows
				if len(args) != 2 {
					panic("bad Tf operator")
				}
				enc = encoderOf(fonts, args[0].Name(), encoders)
			case "Tj", "'", "\"": // shows a string (the last operand); ' and " on the next line
				if len(args) == 0 {
					panic("bad " + op + " operator")
				}
				if op != "Tj" {
					show("\n")
				}
				show(enc.Decode(args[len(args)-1].RawString()))
			case "TJ": // shows strings with glyph positions between them
				if len(args) != 1 {
					panic("bad TJ operator")
				}
				for i := 0; i < args[0].Len(); i++ {
					switch x := args[0].Index(i); {
					case x.Kind() == pdf.String:
						show(enc.Decode(x.RawString()))
					case x.Float64() < -wordGap:
						show(" ") // many writers space words by moving the next glyph, not by a space
					}
				}
			}
		})
	}()
	if err != nil {
		return err
	}
	text := strings.TrimRightFunc(b.String(), unicode.IsSpace)
	if text != "" {
		if o.pages > 0 {
			o.w.WriteString("\n\n")
		}
		o.w.WriteString(text)
		o.pages++
		o.left -= utf8.RuneCountInString(text)
	}
	if full || (o.limited && o.left <= 0) {
		return errEnough
	}
	return nil
}

// encoderOf is the text encoding of the page's font name, parsed once per page.
func encoderOf(fonts pdf.Value, name string, cache map[string]pdf.TextEncoding) pdf.TextEncoding {
	if enc, ok := cache[name]; ok {
		return enc
	}
	var enc pdf.TextEncoding = rawText{}
	if v := fonts.Key(name); !v.IsNull() {
		f := pdf.Font{V: v}
		enc = f.Encoder()
	}
	cache[name] = enc
	return enc
}

// rawText is the encoding of a string shown in no known font: its bytes.
type rawText struct{}

func (rawText) Decode(raw string) string { return raw }

// popArgs pops the operands of an operator, the first one first.
func popArgs(stk *pdf.Stack) []pdf.Value {
	args := make([]pdf.Value, stk.Len())
	for i := len(args) - 1; i >= 0; i-- {
		args[i] = stk.Pop()
	}
	return args
}
