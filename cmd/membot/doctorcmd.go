package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/membot/membot/cmd/membot/app"
	"github.com/membot/membot/cmd/membot/doctor"
	"github.com/membot/membot/web"
)

// errChecksFailed is a doctor's run with a check that failed: exit 1.
var errChecksFailed = errors.New("some checks failed (see above)")

// runDoctor is `membot doctor`: every part the settings use, checked,
// one line each on stdout; what the parts log goes to stderr.
func runDoctor(ctx context.Context, getenv app.Getenv, args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("membot doctor", flag.ContinueOnError)
	timeout := flags.Duration("timeout", doctor.DefaultTimeout, "the longest each call of a check may take")
	flags.Usage = func() {
		fmt.Fprintln(flags.Output(), "usage: membot doctor [-timeout 20s]\n\nChecks each part the settings use and says what to fix. Flags:")
		flags.PrintDefaults()
	}
	if len(args) > 0 && isHelp(args[0]) {
		flags.SetOutput(stdout)
		flags.Usage()
		return nil
	}
	flags.SetOutput(stderr)
	if err := flags.Parse(args); err != nil || flags.NArg() > 0 || *timeout <= 0 {
		if err == nil {
			flags.Usage()
		}
		return app.NewConfigError("membot doctor takes only -timeout (a positive duration)")
	}
	cfg, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(cfg.Secrets().Writer(stderr), &slog.HandlerOptions{Level: slog.LevelWarn}))
	if doctor.Run(ctx, cfg, stdout, doctor.Options{Timeout: *timeout, Log: log}) > 0 {
		return errChecksFailed
	}
	return nil
}

// webChecks are membot doctor's checks for the web interface's overview,
// which runs them when an operator asks.
func webChecks(cfg *app.Config) func(ctx context.Context) []web.Check {
	return func(ctx context.Context) []web.Check {
		var out []web.Check
		for _, l := range doctor.Lines(ctx, cfg, doctor.Options{}) {
			detail := l.Text
			if l.Part == "access" && strings.Contains(detail, "?start=") {
				// A login-less page must not hand out the claim: whoever
				// reads the code becomes the owner.
				detail = "owner mode, not claimed yet: the claim link is in the bot's start-up log (and membot doctor's output)"
			}
			if l.Fix != "" {
				detail += " — fix: " + l.Fix
			}
			out = append(out, web.Check{Name: l.Part, Mark: l.Mark(), OK: !l.Failed(), Detail: detail})
		}
		return out
	}
}
