// Package doctor checks each part a bot's settings use — the database,
// Telegram, the model servers, embeddings, voice, pictures, the MCP
// servers, web search, access — with a small real call each, and says in
// one line per part what works and, for what does not, why and what to
// change (`membot doctor`). The checks run at once, each bounded in time;
// the lines come in a fixed order. Nothing secret is printed.
package doctor

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/membot/membot/cmd/membot/app"
	"github.com/membot/membot/internal/netcause"
)

// Status is what a line says of its part.
type Status int

// The statuses, and their marks.
const (
	OK     Status = iota // ✓ it works
	Failed               // ✗ it does not: the line says why, and the fix
	Unset                // – it is not set (or not used): nothing to check
)

func (s Status) mark() string { return [...]string{"✓", "✗", "–"}[s] }

// Line is one line of the report.
type Line struct {
	Status Status
	Part   string // "database", "telegram", "model gpt-4o-mini", ...
	Text   string // what was found, or what failed
	Fix    string // what to change, for a failure
}

// ok, failed and unset make lines.
func ok(part, format string, args ...any) Line {
	return Line{Status: OK, Part: part, Text: fmt.Sprintf(format, args...)}
}

func failed(part, text, fix string) Line {
	return Line{Status: Failed, Part: part, Text: text, Fix: fix}
}

func unset(part, format string, args ...any) Line {
	return Line{Status: Unset, Part: part, Text: fmt.Sprintf(format, args...)}
}

// because is the line of a failed call, its cause in words.
func because(part string, cause netcause.Cause) Line { return failed(part, cause.What, cause.Fix) }

// DefaultTimeout bounds each call of a check.
const DefaultTimeout = 20 * time.Second

// Options change how the checks run.
type Options struct {
	// Timeout bounds each call a check makes (DefaultTimeout when zero); a
	// check of several calls in a row has that many times as long.
	Timeout time.Duration
	// Log gets what the parts log while they are checked (an MCP
	// server's stderr, the embedded PostgreSQL's start).
	Log *slog.Logger
}

// doctor is one run of the checks against the settings.
type doctor struct {
	cfg     *app.Config
	timeout time.Duration
	log     *slog.Logger
}

// check is one part's check: calls is how many calls it makes one after
// another, each bounded by the timeout.
type check struct {
	part  string
	calls int
	run   func(ctx context.Context) []Line
}

// Lines checks every part cfg uses and returns a line each, in the
// report's order (the web interface's overview shows them).
func Lines(ctx context.Context, cfg *app.Config, opts Options) []Line {
	d := &doctor{cfg: cfg, timeout: opts.Timeout, log: opts.Log}
	if d.timeout <= 0 {
		d.timeout = DefaultTimeout
	}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	// The access line reads the claim from the database: after the
	// others, so an embedded PostgreSQL is never started twice at once.
	return append(d.runAll(ctx, d.checks()), d.runAll(ctx, []check{{"access", 3, d.access}})...)
}

// Failed tells whether the line's part does not work.
func (l Line) Failed() bool { return l.Status == Failed }

// Mark is the line's ✓, ✗ or –.
func (l Line) Mark() string { return l.Status.mark() }

// Run checks every part cfg uses and writes a line each to w, with every
// secret of cfg taken out; it returns how many failed.
func Run(ctx context.Context, cfg *app.Config, w io.Writer, opts Options) int {
	lines := Lines(ctx, cfg, opts)
	w = cfg.Secrets().Writer(w)
	failures := 0
	for _, l := range lines {
		fmt.Fprintf(w, "%s %s: %s\n", l.Status.mark(), l.Part, oneLine(l.Text))
		if l.Status == Failed {
			failures++
			if l.Fix != "" {
				fmt.Fprintf(w, "    fix: %s\n", oneLine(l.Fix))
			}
		}
	}
	if failures == 0 {
		fmt.Fprintln(w, "everything set works")
	} else {
		fmt.Fprintf(w, "%d %s failed\n", failures, plural(failures, "check", "checks"))
	}
	return failures
}

// checks are the checks of every part, in the order they are printed.
func (d *doctor) checks() []check {
	list := []check{
		{"database", 6, d.database},
		{"telegram", 2, d.telegram},
	}
	list = append(list, d.modelChecks()...)
	list = append(list,
		check{"embeddings", 1, d.embeddings},
		check{"transcription", 1, d.transcription},
		check{"speech", 1, d.speech},
		check{"pictures", 1, d.pictures},
		check{"mcp", 1, d.mcp},
		check{"web search", 1, d.webSearch},
	)
	return list
}

// runAll runs the checks at once and returns their lines in the checks'
// order. A check that outlives its bound (a call that ignores its
// context) is reported as such, not waited for.
func (d *doctor) runAll(ctx context.Context, checks []check) []Line {
	start := time.Now()
	results := make([]chan []Line, len(checks))
	for i, c := range checks {
		results[i] = make(chan []Line, 1)
		go func() {
			ctx, cancel := context.WithTimeout(ctx, time.Duration(max(c.calls, 1))*d.timeout)
			defer cancel()
			results[i] <- c.run(ctx)
		}()
	}
	var lines []Line
	for i, c := range checks {
		bound := time.Duration(max(c.calls, 1)) * d.timeout
		select {
		case got := <-results[i]:
			lines = append(lines, got...)
		case <-time.After(time.Until(start.Add(bound + time.Second))): // a moment to say why it stopped
			lines = append(lines, failed(c.part, fmt.Sprintf("no answer within %v", bound), "see the log above; check the network"))
		}
	}
	return lines
}

// call is ctx bounded by the timeout of one call.
func (d *doctor) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d.timeout)
}

// oneLine keeps a server's words on the report's line.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 400 {
		s = strings.ToValidUTF8(s[:400], "") + "…"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// list names at most n of names, and how many more there are.
func list(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
