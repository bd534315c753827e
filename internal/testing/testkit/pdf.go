package testkit

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
)

// PDF makes a small valid PDF of one page that shows lines in Helvetica:
// the file a person sends in the tests of reading PDFs. The lines must be
// ASCII without parentheses or backslashes.
func PDF(lines ...string) []byte {
	return PagesPDF(lines)
}

// PagesPDF makes a valid PDF of one page per element of pages, each
// showing its lines (as PDF's lines: ASCII, no parentheses or
// backslashes), the pages listed flat under the root as simple writers do.
func PagesPDF(pages ...[]string) []byte {
	// 1 catalog, 2 pages, 3 font, then each page and its content stream.
	kids := make([]string, len(pages))
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"}
	for i, lines := range pages {
		page := len(objects) + 1
		kids[i] = fmt.Sprintf("%d 0 R", page)
		objects = append(objects,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources << /Font << /F1 3 0 R >> >> >>", page+1),
			stream("", showLines(lines)))
	}
	objects[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages))
	return document(objects...)
}

// LoopingPDF is a PDF whose page tree's only child is the tree itself
// (228 bytes of it once kept a reader busy for ever).
func LoopingPDF() []byte {
	return document("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [2 0 R] /Count 1 >>")
}

// SelfParentPDF is a PDF whose one page is its own parent and has no
// resources of its own: a reader that looks for inherited resources
// through the parents never ends.
func SelfParentPDF() []byte {
	return document("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 3 0 R /Contents 4 0 R >>", stream("", showLines([]string{"hello"})))
}

// RepeatedStreamPDF is a PDF of one page whose content is one compressed
// stream, of content (as written to a PDF's content stream) repeated
// copies times, shown times over: a few kilobytes that a reader expands
// to copies*len(content)*times bytes.
func RepeatedStreamPDF(content string, copies, times int) []byte {
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	for range copies {
		w.Write([]byte(content))
	}
	w.Close()
	refs := strings.TrimSpace(strings.Repeat("4 0 R ", times))
	return document("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Contents ["+refs+"] /Resources << /Font << /F1 5 0 R >> >> >>",
		stream("/Filter /FlateDecode ", z.String()),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
}

// HugeStringPDF is a PDF of one page that shows one string of size bytes
// in one compressed stream (about size/160 bytes of file): a reader holds
// the whole string at once.
func HugeStringPDF(size int) []byte {
	data := zlibRun("BT /F1 12 Tf 72 720 Td (", 'A', size, ") Tj ET")
	return document("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>", stream("/Filter /FlateDecode ", string(data)))
}

// zlibRun is the zlib stream of prefix, n bytes c, then suffix, written
// by hand (RFC 1950, 1951: one block of fixed Huffman codes, the run as
// copies of 258 bytes at distance 1) so that it costs time in the size of
// the file, not of what it expands to.
func zlibRun(prefix string, c byte, n int, suffix string) []byte {
	var w bitWriter
	w.bits(1, 1) // the final block
	w.bits(1, 2) // of fixed Huffman codes
	literals := func(s string) {
		for i := 0; i < len(s); i++ {
			w.literal(s[i])
		}
	}
	literals(prefix)
	if n > 0 {
		w.literal(c)
		left := n - 1
		for ; left >= 258; left -= 258 {
			w.code(0b11000101, 8) // length 258 (code 285)
			w.code(0, 5)          // distance 1 (code 0)
		}
		literals(strings.Repeat(string(c), left))
	}
	literals(suffix)
	w.code(0, 7) // the end of the block
	w.flush()

	// The Adler-32 of the data: the run's part in closed form.
	const mod = 65521
	a, b := uint64(1), uint64(0)
	add := func(s string) {
		for i := 0; i < len(s); i++ {
			a = (a + uint64(s[i])) % mod
			b = (b + a) % mod
		}
	}
	add(prefix)
	m := uint64(n) % mod
	tri := uint64(n) * uint64(n+1) / 2 % mod
	b = (b + m*a + uint64(c)*tri) % mod
	a = (a + m*uint64(c)) % mod
	add(suffix)
	sum := b<<16 | a
	out := append([]byte{0x78, 0x01}, w.out...)
	return append(out, byte(sum>>24), byte(sum>>16), byte(sum>>8), byte(sum))
}

// bitWriter packs the bits of a deflate stream, first bit lowest.
type bitWriter struct {
	out   []byte
	acc   uint64
	count uint
}

// bits writes the n low bits of v, lowest first (header fields).
func (w *bitWriter) bits(v uint64, n uint) {
	w.acc |= v << w.count
	for w.count += n; w.count >= 8; w.count -= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
	}
}

// code writes a Huffman code of n bits, highest first.
func (w *bitWriter) code(v uint64, n uint) {
	var r uint64
	for i := uint(0); i < n; i++ {
		r = r<<1 | (v>>i)&1
	}
	w.bits(r, n)
}

// literal writes byte x in the fixed literal codes.
func (w *bitWriter) literal(x byte) {
	if x < 144 {
		w.code(0x30+uint64(x), 8)
	} else {
		w.code(0x190+uint64(x)-144, 9)
	}
}

func (w *bitWriter) flush() {
	if w.count > 0 {
		w.out = append(w.out, byte(w.acc))
	}
	w.acc, w.count = 0, 0
}

// showLines is a content stream that shows lines in font F1, one under another.
func showLines(lines []string) string {
	var content strings.Builder
	content.WriteString("BT /F1 14 Tf 72 720 Td\n")
	for i, line := range lines {
		if i > 0 {
			content.WriteString("0 -20 Td\n")
		}
		fmt.Fprintf(&content, "(%s) Tj\n", line)
	}
	content.WriteString("ET")
	return content.String()
}

// stream is a stream object of data, with more entries of its dictionary.
func stream(entries, data string) string {
	return fmt.Sprintf("<< %s/Length %d >>\nstream\n%s\nendstream", entries, len(data), data)
}

// document is a PDF of objects (numbered from 1, the first the catalog)
// with its cross-reference table.
func document(objects ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objects))
	for i, obj := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, obj)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}
