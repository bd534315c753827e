// Package filetext reads the text of a file a person sent: text-like files
// (plain text, Markdown, CSV, JSON, code, logs) as they are, PDFs through
// a PDF reader in a parser process of their own (box.go, child.go). Every
// file is hostile input: what is read is bounded, a malformed PDF is an
// error, and a PDF built to exhaust its reader (a page tree that loops, a
// stream that decompresses to gigabytes) is stopped by the limits of its
// process, which ends with it: the bot keeps nothing of it.
package filetext

import (
	"bytes"
	"errors"
	"path"
	"strings"
	"unicode/utf8"
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
