package filetext_test

import (
	"strings"
	"testing"

	"github.com/membot/membot/internal/filetext"
	"github.com/membot/membot/internal/testing/testkit"
)

func TestKindsOfFiles(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, mime, want string }{
		{"notes.txt", "text/plain", filetext.Text},
		{"README.md", "", filetext.Text},
		{"data.csv", "text/csv", filetext.Text},
		{"x.json", "application/json", filetext.Text},
		{"main.go", "application/octet-stream", filetext.Text},
		{"server.log", "", filetext.Text},
		{"Dockerfile", "", filetext.Text},
		{"paper.pdf", "application/pdf", filetext.PDF},
		{"scan", "application/pdf", filetext.PDF},
		{"setup.exe", "application/x-msdownload", ""},
		{"archive.zip", "application/zip", ""},
	}
	for _, c := range cases {
		if got := filetext.KindOf(c.name, c.mime); got != c.want {
			t.Errorf("KindOf(%q, %q) = %q, want %q", c.name, c.mime, got, c.want)
		}
	}
}

func TestTextIsCutAtTheBoundAndBinaryRefused(t *testing.T) {
	t.Parallel()
	text, cut, err := filetext.Read(filetext.Text, []byte("\xef\xbb\xbfпривет, world"), 6)
	if err != nil || !cut || text != "привет" {
		t.Fatalf("Read = %q, %v, %v", text, cut, err)
	}
	if _, _, err := filetext.Read(filetext.Text, []byte("PK\x03\x04\x00\x00binary"), 100); err != filetext.ErrNotText {
		t.Fatalf("binary data read as text: %v", err)
	}
}

func TestPDFTextIsReadAndMalformedPDFsAreErrors(t *testing.T) {
	t.Parallel()
	text, cut, err := filetext.Read(filetext.PDF, testkit.PDF("The quarterly revenue was 42 million", "Second line"), 1000)
	if err != nil || cut || !strings.Contains(text, "The quarterly revenue was 42 million") || !strings.Contains(text, "Second line") {
		t.Fatalf("Read = %q, %v, %v", text, cut, err)
	}
	for _, bad := range [][]byte{[]byte("%PDF-1.4\ngarbage"), testkit.PDF("x")[:200], []byte("")} {
		if _, _, err := filetext.Read(filetext.PDF, bad, 1000); err == nil {
			t.Errorf("a malformed PDF of %d bytes read without an error", len(bad))
		}
	}
}
