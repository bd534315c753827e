package filetext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

// Config bounds the parser process that reads a PDF. Zero fields take
// the defaults beside them.
type Config struct {
	// Memory is the address space a parse may add to the parser's own, in
	// bytes (RLIMIT_AS); DefaultMemory when 0.
	Memory int64
	// CPU is the CPU time of one parse (RLIMIT_CPU, whole seconds);
	// DefaultCPU when 0.
	CPU time.Duration
	// Timeout is the wall-clock time of one parse; DefaultTimeout when 0.
	Timeout time.Duration
	// Parallel is how many parses run at once; runtime.NumCPU() when 0.
	Parallel int
	// Program is the binary started as the parser, with Subcommand and its
	// flags; the running binary when "" (/proc/self/exe: the very binary
	// that runs, even when an upgrade has replaced the file since).
	Program string
}

// Defaults of Config: a PDF of Telegram's 20 MB whose text is read to
// FILE_CHARS takes well under a second and a few tens of MB; ten times
// that is still a legitimate file, a hundred times is a hostile one.
const (
	DefaultMemory  = 512 << 20
	DefaultCPU     = 20 * time.Second
	DefaultTimeout = 30 * time.Second
)

// ErrTooHeavy is a file whose parse was stopped: it needed more memory,
// CPU time, wall-clock time or output than a file may have.
var ErrTooHeavy = errors.New("reading the file needed more memory or time than a file may have")

// ErrBusy is a file from an owner whose previous file is still being read.
var ErrBusy = errors.New("a file of the same owner is being read")

// maxParsedRunes bounds the text of a parse, whatever the caller asks.
const maxParsedRunes = 1 << 20

// maxStderr bounds what is kept of the parser's stderr, for the error.
const maxStderr = 2048

// Reader reads files: text-like ones here, PDFs in a parser process under
// the limits of its Config, one at a time per owner.
type Reader struct {
	cfg   Config
	slots chan struct{} // a parse holds one: at most Parallel at once

	mu     sync.Mutex
	owners map[int64]bool // owners with a parse under way
}

// New returns a Reader under cfg's limits.
func New(cfg Config) *Reader {
	if cfg.Memory <= 0 {
		cfg.Memory = DefaultMemory
	}
	if cfg.CPU <= 0 {
		cfg.CPU = DefaultCPU
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = runtime.NumCPU()
	}
	return &Reader{cfg: cfg, slots: make(chan struct{}, cfg.Parallel), owners: map[int64]bool{}}
}

// Read returns the text of data, a file of kind (KindOf) sent by owner,
// at most maxRunes runes of it (all of a text file when 0, a million
// runes of a PDF), and whether there was more. A PDF whose parse the limits stopped is ErrTooHeavy; a second
// PDF of an owner while one of theirs is read is ErrBusy at once (see
// claim); one the parser could not read is another error.
func (r *Reader) Read(ctx context.Context, owner int64, kind string, data []byte, maxRunes int) (text string, cut bool, err error) {
	switch kind {
	case Text:
		return readText(data, maxRunes)
	case PDF:
		if !r.claim(owner) {
			return "", false, ErrBusy
		}
		defer r.release(owner)
		select {
		case r.slots <- struct{}{}:
			defer func() { <-r.slots }()
		case <-ctx.Done():
			return "", false, ctx.Err()
		}
		return r.parse(ctx, kind, data, maxRunes)
	}
	return "", false, fmt.Errorf("files of kind %q are not read", kind)
}

// claim marks owner's parse under way, false when one already is. A
// second file is refused rather than queued: one chat's messages are
// handled one at a time already, so only files sent in several chats at
// once meet here, and queuing those would hold each of those chats for
// the parses before it (up to Timeout each); the answer says to send it
// again.
func (r *Reader) claim(owner int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.owners[owner] {
		return false
	}
	r.owners[owner] = true
	return true
}

func (r *Reader) release(owner int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.owners, owner)
}

// parse runs the parser process on data and reads its text, at most
// maxRunes runes (4 bytes each at most) after the header: past that, or
// past Timeout, the process is killed. It returns once the process is
// gone.
func (r *Reader) parse(ctx context.Context, kind string, data []byte, maxRunes int) (string, bool, error) {
	if os.Getenv(childEnv) != "" {
		return "", false, errors.New("a parser process does not start parsers")
	}
	program := r.cfg.Program
	if program == "" {
		program = "/proc/self/exe"
	}
	if maxRunes <= 0 || maxRunes > maxParsedRunes {
		maxRunes = maxParsedRunes
	}
	parseCtx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	cmd := exec.CommandContext(parseCtx, program, Subcommand, "-kind", kind, "-runes", strconv.Itoa(maxRunes),
		"-memory", strconv.FormatInt(r.cfg.Memory, 10), "-cpu", r.cfg.CPU.String())
	cmd.Env = []string{childEnv + "=1"} // none of the bot's settings: no token, no keys
	cmd.Stdin = bytes.NewReader(data)
	stderr := &headBuffer{max: maxStderr}
	cmd.Stderr = stderr
	cmd.WaitDelay = time.Second // the pipes are closed this long after a kill at most
	dieWithBot(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", false, err
	}
	if err := cmd.Start(); err != nil {
		return "", false, fmt.Errorf("start the parser: %w", err)
	}
	bound := int64(len(header)) + utf8.UTFMax*int64(maxRunes)
	out, readErr := io.ReadAll(io.LimitReader(stdout, bound+1))
	overflow := int64(len(out)) > bound
	if overflow {
		cmd.Process.Kill() // it wrote past the bound it was given
	}
	waitErr := cmd.Wait()
	var exit *exec.ExitError
	finished := waitErr == nil || errors.As(waitErr, &exit) && exit.ExitCode() == exitCut
	switch {
	case overflow:
		return "", false, fmt.Errorf("%w: it wrote more than %d bytes", ErrTooHeavy, bound)
	case finished && readErr != nil:
		return "", false, fmt.Errorf("read the parser's text: %w", readErr)
	case finished && !bytes.HasPrefix(out, []byte(header)):
		return "", false, fmt.Errorf("%s does not answer as the parser (its TestMain must call filetext.RunIfChild)", program)
	case finished:
		text, cut, _ := limitRunes(strings.ToValidUTF8(string(out[len(header):]), "\uFFFD"), maxRunes)
		return text, cut || waitErr != nil, nil
	case ctx.Err() != nil:
		return "", false, ctx.Err()
	case parseCtx.Err() != nil:
		return "", false, fmt.Errorf("%w: it ran past %s", ErrTooHeavy, r.cfg.Timeout)
	case exit != nil && exit.ExitCode() == exitUnreadable:
		return "", false, fmt.Errorf("parse %s: %s", kind, stderr.firstLine())
	}
	return "", false, fmt.Errorf("%w: the parser ended with %s (%s)", ErrTooHeavy, stopReason(waitErr), stderr.firstLine())
}

// stopReason names how the parser ended: the signal that killed it (the
// kernel's SIGKILL at RLIMIT_CPU), or its exit code.
func stopReason(err error) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "signal " + ws.Signal().String()
		}
		return "exit code " + strconv.Itoa(exit.ExitCode())
	}
	return err.Error()
}

// headBuffer keeps the first max bytes written to it and drops the rest,
// so a parser that floods its stderr is never blocked and costs little.
type headBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (h *headBuffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := h.max - len(h.buf); room > 0 {
		h.buf = append(h.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// firstLine is the first non-empty line written, valid UTF-8.
func (h *headBuffer) firstLine() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	for line := range strings.Lines(string(h.buf)) {
		if line = strings.TrimSpace(line); line != "" {
			return strings.ToValidUTF8(line, "?")
		}
	}
	return "no message"
}
