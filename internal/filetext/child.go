package filetext

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Subcommand is the hidden command line of the parser process:
// "membot parse-file -kind pdf -runes N -memory BYTES -cpu SECONDS",
// the file on stdin, its text on stdout.
const Subcommand = "parse-file"

// childEnv marks the parser process: a parser never starts parsers of
// its own (a test binary without RunIfChild would otherwise run its
// tests again as the parser, and they would start more).
const childEnv = "MEMBOT_PARSE_FILE"

// header opens the parser's answer, so that a program that is not the
// parser (a test binary whose TestMain does not call RunIfChild) is an
// error rather than text.
const header = "membot parse-file 1\n"

// The parser's exit codes besides 0 (all the text): 1 is a file it could
// not read (why, on stderr); any other end (a signal, the Go runtime's 2
// for out of memory) is a parse stopped by the limits.
const (
	exitUnreadable = 1
	exitCut        = 3 // the text was cut at the bound
)

// RunIfChild makes this process the parser when it was started as one
// (os.Args[1] is Subcommand): it reads the file on stdin, writes its text
// on stdout and exits. Otherwise it returns at once. membot's main calls
// it first; so does the TestMain of a package whose tests read PDFs, so
// that the test binary can be the parser those tests start.
func RunIfChild() {
	if len(os.Args) < 2 || os.Args[1] != Subcommand {
		return
	}
	os.Exit(child(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
}

// child is the parser: it puts the limits on itself before it reads a
// byte of the file, then parses. Whatever the file makes the parser do
// past them, the kernel stops (RLIMIT_AS, RLIMIT_CPU) or the parent does.
func child(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet(Subcommand, flag.ContinueOnError)
	flags.SetOutput(stderr)
	kind := flags.String("kind", PDF, "the kind of file")
	runes := flags.Int("runes", 0, "the most runes of text written (0: all)")
	memory := flags.Int64("memory", DefaultMemory, "the address space the parse may add, bytes")
	cpu := flags.Duration("cpu", DefaultCPU, "the CPU time the parse may take")
	if err := flags.Parse(args); err != nil {
		return exitUnreadable
	}
	if err := limitSelf(*memory, *cpu); err != nil {
		fmt.Fprintln(stderr, "limits:", err)
		return exitUnreadable
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintln(stderr, "read the file:", err)
		return exitUnreadable
	}
	if _, err := io.WriteString(stdout, header); err != nil {
		return exitUnreadable
	}
	var cut bool
	switch *kind {
	case PDF:
		cut, err = writePDFText(stdout, data, *runes)
	default:
		err = fmt.Errorf("files of kind %q are not parsed here", *kind)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUnreadable
	}
	if cut {
		return exitCut
	}
	return 0
}

// limitSelf bounds this process: memory more address space than it has
// now (RLIMIT_AS: what the runtime and, in a race-detector build, its
// shadow already reserved is not counted against the file), cpu of CPU
// time (RLIMIT_CPU: the kernel kills it then), one thread of Go code, and
// a goroutine stack of 64 MB (deep nesting fails fast, not by eating the
// memory bound).
func limitSelf(memory int64, cpu time.Duration) error {
	runtime.GOMAXPROCS(1)
	debug.SetMaxStack(64 << 20)
	debug.SetMemoryLimit(memory / 2) // the collector works hard well before the hard bound
	size, err := addressSpace()
	if err != nil {
		return err
	}
	as := uint64(size + memory)
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: as, Max: as}); err != nil {
		return fmt.Errorf("RLIMIT_AS: %w", err)
	}
	secs := uint64((cpu + time.Second - 1) / time.Second)
	if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: secs, Max: secs}); err != nil {
		return fmt.Errorf("RLIMIT_CPU: %w", err)
	}
	return nil
}

// addressSpace is this process's virtual memory size now, in bytes.
func addressSpace() (int64, error) {
	statm, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, err
	}
	pages, err := strconv.ParseInt(strings.Fields(string(statm))[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/self/statm: %w", err)
	}
	return pages * int64(os.Getpagesize()), nil
}
