package mcptools

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"
)

// passedEnv are the variables of the bot's environment a stdio server
// gets besides its own "env": what programs need to find themselves,
// nothing else (the bot token, the API keys and every other setting stay
// in the bot).
var passedEnv = []string{"PATH", "HOME", "LANG"}

// The bounds of a server's stderr in the log.
const (
	stderrLineBytes = 500
	stderrPerSecond = 2
	stderrBurst     = 20
)

// process is a stdio server's process, in a process group of its own so
// that stopping it stops whatever it started.
type process struct {
	cmd  *exec.Cmd
	in   io.Closer // its stdin: closing it asks the server to exit
	done chan struct{}
	err  error // how it ended, once done
	once sync.Once
}

// startProcess starts the server's command in dir (its entry's "cwd"
// when set) with its stdin and stdout as the session's transport, and its
// stderr going to the log. The bot's end (ctx) stops it. What it writes
// is bounded (maxBytesPerMinute): past that, breach is told.
func startProcess(ctx context.Context, cfg Server, dir string, log *slog.Logger, clean func(string) string, breach func(error)) (*process, mcp.Transport, error) {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = dir
	cmd.Env = []string{} // not nil: nil is the bot's whole environment
	for _, k := range passedEnv {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	for k, v := range cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	ownGroup(cmd)
	// Pipes of our own rather than cmd's: Wait closes those, and the
	// session reads stdout after the process ended (its last words).
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, nil, err
	}
	p := &process{cmd: cmd, in: inW, done: make(chan struct{})}
	go logStderr(errR, log, clean)
	go func() {
		p.err = cmd.Wait()
		killGroup(cmd, true) // what it started and left behind, holding its pipes open
		close(p.done)
	}()
	go func() {
		select {
		case <-ctx.Done():
			p.stop()
		case <-p.done:
		}
	}()
	perMinute := cmp.Or(cfg.perMinute, maxBytesPerMinute)
	out := &metered{r: outR, limit: rate.NewLimiter(rate.Limit(perMinute)/60, perMinute), breach: breach,
		err: fmt.Errorf("it wrote more than %d MiB in a minute", perMinute>>20)}
	return p, &mcp.IOTransport{Reader: out, Writer: inW, MaxLineLength: maxLineBytes}, nil
}

// metered is a stdio server's output, read within a rate: a server that
// writes without end is stopped rather than read for ever.
type metered struct {
	r      io.ReadCloser
	limit  *rate.Limiter
	breach func(error)
	err    error // what a breach is
}

func (m *metered) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	if n > 0 && !m.limit.AllowN(time.Now(), n) {
		m.breach(m.err)
		return 0, m.err
	}
	return n, err
}

func (m *metered) Close() error { return m.r.Close() }

// stop asks the server to exit by closing its stdin, then signals its
// process group: SIGTERM after a second, SIGKILL after another.
func (p *process) stop() {
	p.once.Do(func() {
		p.in.Close()
		for _, hard := range []bool{false, true} {
			select {
			case <-p.done:
				return
			case <-time.After(time.Second):
			}
			killGroup(p.cmd, hard)
		}
		<-p.done
	})
}

// explain adds how the process ended to err, when it has ended.
func (p *process) explain(err error) error {
	select {
	case <-p.done:
	case <-time.After(100 * time.Millisecond): // a session ends a moment before its process
		return err
	}
	if p.err == nil {
		return fmt.Errorf("%w (the process exited)", err)
	}
	return fmt.Errorf("%w (the process ended: %v)", err, p.err)
}

// logStderr logs the server's stderr a line at a time, each line cut to
// stderrLineBytes and at most stderrPerSecond lines a second (in bursts of
// stderrBurst), without the server's secrets (clean); what is dropped is
// counted in the next line logged.
func logStderr(r io.ReadCloser, log *slog.Logger, clean func(string) string) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 4096)
	limit := rate.NewLimiter(stderrPerSecond, stderrBurst)
	dropped := 0
	for {
		line, err := br.ReadSlice('\n')
		cut := errors.Is(err, bufio.ErrBufferFull)
		text := string(line[:min(len(line), stderrLineBytes)])
		for cut { // the rest of a long line is not kept
			_, err = br.ReadSlice('\n')
			cut = errors.Is(err, bufio.ErrBufferFull)
		}
		if len(line) > 0 {
			if limit.Allow() {
				attrs := []any{"line", clean(strings.ToValidUTF8(trimLine(text), "?"))}
				if dropped > 0 {
					attrs = append(attrs, "lines_dropped", dropped)
					dropped = 0
				}
				log.Info("MCP server stderr", attrs...)
			} else {
				dropped++
			}
		}
		if err != nil {
			if dropped > 0 {
				log.Info("MCP server stderr", "lines_dropped", dropped)
			}
			return
		}
	}
}

func trimLine(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}
