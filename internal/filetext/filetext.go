// Package filetext reads the text of a file a person sent: text-like files
// (plain text, Markdown, CSV, JSON, code, logs) as they are, PDFs through
// a PDF reader. Every file is hostile input: what is read is bounded, and
// a malformed PDF is an error, never a crash.
package filetext

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// Kinds of readable files.
const (
	Text = "text"
	PDF  = "pdf"
)

// textExtensions are the names of text-like files, whatever type a client gave them.
var textExtensions = map[string]bool{
	"txt": true, "text": true, "md": true, "markdown": true, "rst": true, "csv": true, "tsv": true, "json": true,
	"jsonl": true, "ndjson": true, "xml": true, "yaml": true, "yml": true, "toml": true, "ini": true, "cfg": true,
	"conf": true, "env": true, "log": true, "out": true, "err": true, "html": true, "htm": true, "css": true,
	"sql": true, "go": true, "py": true, "js": true, "mjs": true, "ts": true, "tsx": true, "jsx": true,
	"java": true, "kt": true, "kts": true, "c": true, "h": true, "cc": true, "cpp": true, "hpp": true, "cs": true,
	"rs": true, "rb": true, "php": true, "pl": true, "swift": true, "scala": true, "sh": true, "bash": true,
	"zsh": true, "ps1": true, "bat": true, "lua": true, "r": true, "m": true, "dart": true, "vue": true,
	"svelte": true, "proto": true, "graphql": true, "tf": true, "dockerfile": true, "makefile": true,
	"gradle": true, "properties": true, "srt": true, "vtt": true, "tex": true, "bib": true, "diff": true, "patch": true,
}

// textTypes are MIME types of text-like files besides text/*.
var textTypes = map[string]bool{
	"application/json": true, "application/xml": true, "application/x-yaml": true, "application/yaml": true,
	"application/toml": true, "application/javascript": true, "application/x-sh": true, "application/sql": true,
	"application/x-ndjson": true, "application/csv": true,
}

// KindOf tells how a file is read from its name and MIME type: Text, PDF,
// or "" when it is not a file this package reads.
func KindOf(name, mimeType string) string {
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(name), "."))
	if ext == "" {
		ext = strings.ToLower(path.Base(name)) // Dockerfile, Makefile
	}
	mimeType = strings.ToLower(strings.TrimSpace(strings.Split(mimeType, ";")[0]))
	switch {
	case ext == "pdf" || mimeType == "application/pdf":
		return PDF
	case textExtensions[ext] || strings.HasPrefix(mimeType, "text/") || textTypes[mimeType]:
		return Text
	}
	return ""
}

// ErrNotText is a file that claimed to be text but holds binary data.
var ErrNotText = errors.New("the file is not text")

// maxPDFPages bounds the pages read of one PDF.
const maxPDFPages = 2000

// Read returns the text of data, a file of kind (KindOf), at most maxRunes
// runes of it, and whether there was more.
func Read(kind string, data []byte, maxRunes int) (text string, cut bool, err error) {
	switch kind {
	case Text:
		return readText(data, maxRunes)
	case PDF:
		return readPDFWithin(data, maxRunes, pdfTimeout)
	}
	return "", false, fmt.Errorf("files of kind %q are not read", kind)
}

func readText(data []byte, maxRunes int) (string, bool, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
	if bytes.IndexByte(data, 0) >= 0 || !mostlyUTF8(data) {
		return "", false, ErrNotText
	}
	return limitRunes(strings.ToValidUTF8(string(data), "\uFFFD"), maxRunes)
}

// mostlyUTF8 tells text from binary data: a text file in another encoding
// still has a few invalid sequences at most in its first 4 KB.
func mostlyUTF8(data []byte) bool {
	head := data[:min(len(data), 4096)]
	bad := 0
	for len(head) > 0 {
		r, n := utf8.DecodeRune(head)
		if r == utf8.RuneError && n == 1 && len(head) >= utf8.UTFMax {
			bad++
		}
		head = head[n:]
	}
	return bad*20 < len(data[:min(len(data), 4096)])+1
}

func limitRunes(s string, maxRunes int) (string, bool, error) {
	if maxRunes <= 0 || utf8.RuneCountInString(s) <= maxRunes {
		return s, false, nil
	}
	n := 0
	for i := range s {
		if n == maxRunes {
			return s[:i], true, nil
		}
		n++
	}
	return s, false, nil
}

// pdfTimeout bounds the reading of one PDF: a hostile file can make the
// reader work for long (deep object graphs, huge streams).
const pdfTimeout = 30 * time.Second

// ErrTooSlow is a file whose reading took longer than allowed.
var ErrTooSlow = errors.New("reading the file took too long")

// readPDFWithin is readPDF given at most timeout. The reader cannot be
// interrupted: past the timeout it is left to finish on its own, and its
// result is dropped; the chat goes on.
func readPDFWithin(data []byte, maxRunes int, timeout time.Duration) (string, bool, error) {
	type result struct {
		text string
		cut  bool
		err  error
	}
	done := make(chan result, 1)
	go func() {
		text, cut, err := readPDF(data, maxRunes)
		done <- result{text, cut, err}
	}()
	select {
	case r := <-done:
		return r.text, r.cut, r.err
	case <-time.After(timeout):
		return "", false, ErrTooSlow
	}
}

// readPDF reads the text of a PDF page by page until maxRunes are read.
// The PDF reader panics on some malformed files: that is an error here.
func readPDF(data []byte, maxRunes int) (text string, cut bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			text, cut, err = "", false, fmt.Errorf("malformed PDF: %v", p)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", false, fmt.Errorf("read PDF: %w", err)
	}
	var b strings.Builder
	pages := min(r.NumPage(), maxPDFPages)
	for i := 1; i <= pages; i++ {
		page, err := r.Page(i).GetPlainText(nil)
		if err != nil {
			return "", false, fmt.Errorf("read PDF page %d: %w", i, err)
		}
		if b.Len() > 0 && page != "" {
			b.WriteString("\n\n")
		}
		b.WriteString(strings.TrimSpace(page))
		if utf8.RuneCountInString(b.String()) > maxRunes && maxRunes > 0 {
			break
		}
	}
	text, cut, err = limitRunes(strings.ToValidUTF8(b.String(), "\uFFFD"), maxRunes)
	return text, cut || pages < r.NumPage(), err
}
