package filetext_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/membot/membot/internal/filetext"
	"github.com/membot/membot/internal/testing/testkit"
	"github.com/membot/membot/internal/testing/wait"
)

// TestMain lets the test binary be the parser process its tests start.
func TestMain(m *testing.M) {
	filetext.RunIfChild()
	if os.Getenv(botEnv) != "" {
		readForever()
	}
	os.Exit(m.Run())
}

// botEnv makes the test binary a bot that reads a file whose parse never
// ends, for TestAKilledBotLeavesNoParser.
const botEnv = "MEMBOT_TEST_FILETEXT_BOT"

func readForever() {
	busy := testkit.RepeatedStreamPDF("q Q\n", 1000000, 1000) // 4 GB of operators, no text
	r := filetext.New(filetext.Config{CPU: time.Hour, Timeout: time.Hour})
	r.Read(context.Background(), 1, filetext.PDF, busy, 1000)
	os.Exit(3)
}

// A bot killed while a parser works leaves no parser behind: the kernel
// kills it with its parent rather than letting it run out its CPU limit.
func TestAKilledBotLeavesNoParser(t *testing.T) {
	t.Parallel()
	bot := exec.Command(os.Args[0], "-test.run=^$")
	bot.Env = append(os.Environ(), botEnv+"=1")
	if err := bot.Start(); err != nil {
		t.Fatal(err)
	}
	var parser string
	if !wait.Until(10*time.Millisecond, func() bool {
		kids := childrenOf(t, bot.Process.Pid)
		if len(kids) > 0 {
			parser = kids[0]
		}
		return parser != ""
	}) {
		bot.Process.Kill()
		bot.Wait()
		t.Fatal("the bot never started a parser")
	}
	bot.Process.Kill()
	bot.Wait()
	if !wait.Until(10*time.Millisecond, func() bool { return !alive(parser) }) {
		t.Fatalf("parser %s still runs after its bot was killed", parser)
	}
}

// alive reports whether process pid runs (a zombie waiting to be reaped
// does not).
func alive(pid string) bool {
	status, err := os.ReadFile(filepath.Join("/proc", pid, "status"))
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(status)) {
		if state, ok := strings.CutPrefix(line, "State:"); ok {
			return !strings.HasPrefix(strings.TrimSpace(state), "Z")
		}
	}
	return true
}

// reader is a Reader whose wall-clock bound is the tests' patience, so a
// slow shared machine does not fail a legitimate file.
func reader() *filetext.Reader {
	return filetext.New(filetext.Config{Timeout: wait.Timeout()})
}

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
	ctx := context.Background()
	text, cut, err := reader().Read(ctx, 1, filetext.Text, []byte("\xef\xbb\xbfпривет, world"), 6)
	if err != nil || !cut || text != "привет" {
		t.Fatalf("Read = %q, %v, %v", text, cut, err)
	}
	if _, _, err := reader().Read(ctx, 1, filetext.Text, []byte("PK\x03\x04\x00\x00binary"), 100); err != filetext.ErrNotText {
		t.Fatalf("binary data read as text: %v", err)
	}
}

func TestPDFTextIsReadAndMalformedPDFsAreErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	text, cut, err := reader().Read(ctx, 1, filetext.PDF, testkit.PDF("The quarterly revenue was 42 million", "Second line"), 1000)
	if err != nil || cut || !strings.Contains(text, "The quarterly revenue was 42 million") || !strings.Contains(text, "Second line") {
		t.Fatalf("Read = %q, %v, %v", text, cut, err)
	}
	for _, bad := range [][]byte{[]byte("%PDF-1.4\ngarbage"), testkit.PDF("x")[:200], []byte("")} {
		if _, _, err := reader().Read(ctx, 1, filetext.PDF, bad, 1000); err == nil || errors.Is(err, filetext.ErrTooHeavy) {
			t.Errorf("a malformed PDF of %d bytes: %v, want an error that is not ErrTooHeavy", len(bad), err)
		}
	}
}

// A legitimate multi-page PDF gives every page's text in order, a blank
// line between pages, and is cut at the bound in the middle of a page.
func TestPagesAreReadInOrderAndCutAtTheBound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	doc := testkit.PagesPDF([]string{"First page"}, []string{"Second page", "more"}, []string{"Third page"})
	text, cut, err := reader().Read(ctx, 1, filetext.PDF, doc, 0)
	if want := "First page\n\nSecond page\nmore\n\nThird page"; err != nil || cut || !sameWords(text, want) {
		t.Fatalf("Read = %q, %v, %v; want %q", text, cut, err, want)
	}
	text, cut, err = reader().Read(ctx, 1, filetext.PDF, doc, 17)
	if err != nil || !cut || text != "First page\n\nSecon" {
		t.Fatalf("Read with a bound of 17 = %q, %v, %v", text, cut, err)
	}
	// Words spaced by moving the next glyph, as many writers do, are words.
	kerned := testkit.RepeatedStreamPDF("BT /F1 12 Tf [(Hel) -20 (lo) -250 (world)] TJ ET", 1, 1)
	if text, _, err := reader().Read(ctx, 1, filetext.PDF, kerned, 0); err != nil || text != "Hello world" {
		t.Fatalf("Read of a TJ with a word gap = %q, %v", text, err)
	}
}

// sameWords tells whether got reads as want: the same words and the same
// page breaks (a PDF's line breaks are the reader's guess).
func sameWords(got, want string) bool {
	pages := func(s string) []string {
		var out []string
		for p := range strings.SplitSeq(s, "\n\n") {
			out = append(out, strings.Join(strings.Fields(p), " "))
		}
		return out
	}
	return strings.Join(pages(got), "|") == strings.Join(pages(want), "|")
}

// A page tree whose child is itself is a malformed file the parser says
// so of at once, not a parse that runs until a limit stops it; a page
// that is its own parent is read (the parser never looks up a parent).
func TestPageTreesThatLoopAreErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if text, _, err := reader().Read(ctx, 1, filetext.PDF, testkit.LoopingPDF(), 1000); err == nil ||
		errors.Is(err, filetext.ErrTooHeavy) || !strings.Contains(err.Error(), "page tree") {
		t.Errorf("a page tree that is its own child: Read = %q, %v; want a malformed-file error", text, err)
	}
	if text, _, err := reader().Read(ctx, 1, filetext.PDF, testkit.SelfParentPDF(), 1000); err != nil || text != "hello" {
		t.Errorf("a page that is its own parent: Read = %q, %v; want its text", text, err)
	}
}

// One page showing one compressed stream 200 times (170 MB of text from
// 5 KB of file) is read to the bound and no further: the parser
// stops by itself, with the text it has.
func TestAPageShowingOneStreamManyTimesIsCutAtTheBound(t *testing.T) {
	t.Parallel()
	doc := testkit.RepeatedStreamPDF("BT /F1 12 Tf (All work and no play makes Jack a dull boy.) Tj ET\n", 12000, 200)
	text, cut, err := reader().Read(context.Background(), 1, filetext.PDF, doc, 5000)
	if err != nil || !cut || utf8.RuneCountInString(text) != 5000 || !strings.HasPrefix(text, "All work and no play") {
		t.Fatalf("Read = %d runes (%.40q…), %v, %v; want 5000 runes, cut", utf8.RuneCountInString(text), text, cut, err)
	}
}

// The limits kill the parser process: its memory (one string of 128 MB
// from 850 KB of file), its CPU time and its wall-clock time (gigabytes
// of operators that show nothing), its output (a parser that writes past
// its bound). Each time the caller gets ErrTooHeavy, and afterwards the
// process is gone and no goroutine of the parse is left. Not parallel:
// it counts the goroutines.
func TestTheLimitsKillTheParser(t *testing.T) {
	busy := testkit.RepeatedStreamPDF("q 1 0 0 1 0 0 cm Q\n", 50000, 1000) // 950 MB of operators, no text
	flood := filepath.Join(t.TempDir(), "flood")
	if err := os.WriteFile(flood, []byte("#!/bin/sh\nprintf 'membot parse-file 1\\n'\nexec yes\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		cfg  filetext.Config
		doc  []byte
		says string
	}{
		{"memory", filetext.Config{Memory: 64 << 20, Timeout: wait.Timeout()}, testkit.HugeStringPDF(128 << 20), "memory"},
		{"cpu time", filetext.Config{CPU: time.Second, Timeout: wait.Timeout()}, busy, "signal killed"},
		{"wall clock", filetext.Config{CPU: time.Hour, Timeout: time.Second}, busy, "ran past 1s"},
		{"output", filetext.Config{Program: flood, Timeout: wait.Timeout()}, testkit.PDF("x"), "wrote more than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			goroutines := runtime.NumGoroutine()
			text, _, err := filetext.New(c.cfg).Read(context.Background(), 1, filetext.PDF, c.doc, 1000)
			if !errors.Is(err, filetext.ErrTooHeavy) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("Read = %.40q, %v; want ErrTooHeavy saying %q", text, err, c.says)
			}
			t.Log(err)
			if kids := children(t); len(kids) > 0 {
				t.Errorf("processes left after the parse: %v", kids)
			}
			if !wait.Until(10*time.Millisecond, func() bool { return runtime.NumGoroutine() <= goroutines }) {
				t.Errorf("%d goroutines after the parse, %d before", runtime.NumGoroutine(), goroutines)
			}
		})
	}
}

// A second PDF of an owner while one of theirs is being read is refused
// at once (ErrBusy), others' files are read meanwhile, and once the first
// parse ends (here: its caller gives up, which kills it) the owner's next
// file is read.
func TestASecondFileOfTheSameOwnerIsRefusedWhileOneIsRead(t *testing.T) {
	t.Parallel()
	r := filetext.New(filetext.Config{CPU: time.Hour, Timeout: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() {
		busy := testkit.RepeatedStreamPDF("q Q\n", 1000000, 1000) // 4 GB of operators, no text
		for {
			// Refused only while a probe below holds the owner's turn.
			if _, _, err := r.Read(ctx, 7, filetext.PDF, busy, 1000); !errors.Is(err, filetext.ErrBusy) {
				first <- err
				return
			}
		}
	}()
	doc := testkit.PDF("Second file")
	if !wait.Until(10*time.Millisecond, func() bool {
		_, _, err := r.Read(context.Background(), 7, filetext.PDF, doc, 1000)
		return errors.Is(err, filetext.ErrBusy)
	}) {
		select {
		case err := <-first:
			t.Fatalf("a second file of the owner was never refused while the first was read; the first ended: %v", err)
		default:
			t.Fatal("a second file of the owner was never refused while the first was read")
		}
	}
	if text, _, err := r.Read(context.Background(), 8, filetext.PDF, doc, 1000); err != nil || text != "Second file" {
		t.Fatalf("another owner's file meanwhile: %q, %v", text, err)
	}
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("the first parse, given up: %v", err)
	}
	if text, _, err := r.Read(context.Background(), 7, filetext.PDF, doc, 1000); err != nil || text != "Second file" {
		t.Fatalf("the owner's next file: %q, %v", text, err)
	}
}

// children are the live processes whose parent is this one.
func children(t *testing.T) []string {
	t.Helper()
	return childrenOf(t, os.Getpid())
}

// childrenOf are the processes whose parent is pid.
func childrenOf(t *testing.T, pid int) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var kids []string
	self := strconv.Itoa(pid)
	for _, e := range entries {
		status, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue // not a process, or gone
		}
		for line := range strings.Lines(string(status)) {
			if ppid, ok := strings.CutPrefix(line, "PPid:"); ok && strings.TrimSpace(ppid) == self {
				kids = append(kids, e.Name())
			}
		}
	}
	return kids
}
