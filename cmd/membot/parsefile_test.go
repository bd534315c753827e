package main

import (
	"context"
	"errors"
	"testing"

	"github.com/membot/membot/internal/filetext"
	"github.com/membot/membot/internal/testing/testkit"
	"github.com/membot/membot/internal/testing/wait"
)

// The membot binary is the parser process the bot starts for a PDF
// (membot parse-file): a PDF's text comes back through it, and a PDF
// built to exhaust its reader is stopped by its limits.
func TestTheBinaryIsThePDFParser(t *testing.T) {
	t.Parallel()
	r := filetext.New(filetext.Config{Program: buildBinary(t), Timeout: wait.Timeout()})
	ctx := context.Background()
	if text, cut, err := r.Read(ctx, 1, filetext.PDF, testkit.PDF("Hello from the parser"), 1000); err != nil || cut || text != "Hello from the parser" {
		t.Fatalf("a PDF read by membot parse-file: %q, %v, %v", text, cut, err)
	}
	if _, _, err := r.Read(ctx, 1, filetext.PDF, testkit.HugeStringPDF(512<<20), 1000); !errors.Is(err, filetext.ErrTooHeavy) {
		t.Fatalf("a string of 512 MB read by membot parse-file: %v, want ErrTooHeavy", err)
	}
}
