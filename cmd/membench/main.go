// Command membench measures what membot adds around the model: it runs the
// real bot (the production wiring, in a process of its own) against an
// in-process fake Telegram and fake OpenAI server and a real PostgreSQL,
// drives many chats at once, and prints one table. See BENCHMARKS.md.
//
//	membench [run] [flags]   the load benchmark
//	membench seed [flags]    fill a database with a realistic history, fast (COPY)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
	_ "time/tzdata" // the seeded stamps are in Europe/Moscow wherever this runs
)

func main() {
	if os.Getenv(childEnv) == "bot" {
		if err := runChild(); err != nil {
			fmt.Fprintln(os.Stderr, "membench bot:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "membench:", err)
		}
		os.Exit(1)
	}
}

const usage = `usage:
  membench [run] [flags]   run the bot under load and print what it costs
  membench seed [flags]    fill a database with a realistic history (COPY)

Run "membench run -h" or "membench seed -h" for the flags.
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd := "run"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "run":
		return runCommand(ctx, args, stdout, stderr)
	case "seed":
		return seedCommand(ctx, args, stdout, stderr)
	case "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", cmd)
}

// extraEnv collects repeated -env KEY=VALUE flags.
type extraEnv []string

func (e *extraEnv) String() string { return strings.Join(*e, " ") }

func (e *extraEnv) Set(s string) error {
	if k, _, ok := strings.Cut(s, "="); !ok || k == "" {
		return fmt.Errorf("want KEY=VALUE, got %q", s)
	}
	*e = append(*e, s)
	return nil
}

func runCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("membench run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := loadConfig{BotLog: stderr}
	var extra extraEnv
	var verbose bool
	fs.StringVar(&cfg.DB, "db", defaultDB, "PostgreSQL URL: a fresh database is created on its server for the run, or with -prefilled this database is used as it is")
	fs.BoolVar(&cfg.Prefilled, "prefilled", false, "run in the -db database as it is (fill it first with membench seed)")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the fresh database after the run")
	fs.IntVar(&cfg.Chats, "chats", 50, "chats writing at once (C)")
	fs.IntVar(&cfg.Messages, "messages", 40, "measured messages per chat (M); each waits for the reply to the one before")
	fs.IntVar(&cfg.Warmup, "warmup", 1, "messages per chat before the measurement starts")
	fs.DurationVar(&cfg.LLMDelay, "llm-delay", 0, "how long the fake model takes to answer (subtracted from the latency)")
	fs.IntVar(&cfg.Bot.HistoryLimit, "history", 30, "HISTORY_LIMIT of the bot")
	fs.IntVar(&cfg.Bot.Workers, "workers", 16, "WORKERS of the bot")
	fs.DurationVar(&cfg.Timeout, "timeout", 30*time.Second, "longest wait for one reply")
	fs.Var(&extra, "env", "KEY=VALUE: another setting for the bot (repeatable)")
	fs.BoolVar(&verbose, "v", false, "also list the database calls per turn")
	fs.BoolVar(&cfg.NoDrafts, "no-drafts", false, "the fake Telegram does not know drafts: streamed answers are edited (with -env STREAMING=true)")
	profile := fs.String("cpuprofile", "", "write the bot's CPU profile to this file (go tool pprof reads it)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if cfg.Chats < 1 || cfg.Messages < 1 || cfg.Warmup < 0 || cfg.LLMDelay < 0 {
		return errors.New("-chats and -messages must be at least 1, -warmup and -llm-delay not negative")
	}
	cfg.Bot.Extra = extra
	if *profile != "" {
		cfg.Bot.Extra = append(cfg.Bot.Extra, cpuProfileEnv+"="+*profile)
	}
	res, err := runLoad(ctx, cfg)
	if err != nil {
		return err
	}
	printReport(stdout, res, verbose)
	if len(res.Problems) > 0 {
		return errProblems
	}
	return nil
}
