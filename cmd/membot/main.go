// Command membot is a Telegram chat bot with a PostgreSQL memory.
//
//	membot [run]          run the bot (the default)
//	membot migrate [up]   apply the database migrations and exit
//	membot migrate status list the migrations and whether they are applied
//	membot admin ...      inspect the database, export or forget a user
//	membot doctor         check each part the settings use, and say what to fix
//	membot version        the version, commit and Go toolchain
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // the image must not depend on the host's zoneinfo

	"github.com/membot/membot/cmd/membot/app"
	"github.com/membot/membot/internal/filetext"
	"github.com/membot/membot/migrations"
)

func main() {
	filetext.RunIfChild() // membot parse-file: the parser process of a PDF, not in the usage
	if err := harden(); err != nil {
		fmt.Fprintln(os.Stderr, "membot: marking the process not dumpable failed; processes of the same user may read its secrets:", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args, os.LookupEnv, os.Stdout, os.Stderr); err != nil {
		os.Exit(fatal(os.Stderr, os.LookupEnv, err))
	}
}

// fatal reports the error that stopped membot, as one JSON log line when
// LOG_FORMAT=json (so a log collector reads it like every other line),
// otherwise as "membot: <error>", with no secret of the settings in it;
// it returns the exit code: 2 for a bad
// setting or command line, 1 otherwise.
func fatal(stderr io.Writer, getenv app.Getenv, err error) int {
	err = app.Redact(getenv, err) // what stopped start-up may quote a setting that holds a secret
	code := 1
	var cfgErr *configError
	if errors.As(err, &cfgErr) {
		code = 2
	}
	if app.LogFormat(getenv) == "json" {
		slog.New(slog.NewJSONHandler(stderr, nil)).Error("membot stopped", "err", err.Error(), "exit_code", code)
	} else {
		fmt.Fprintln(stderr, "membot:", err)
	}
	return code
}

const usage = `usage:
  membot [run]            run the bot
  membot migrate [up]     apply the database migrations and exit
  membot migrate status   list the migrations and whether they are applied
  membot admin stats|history|export|forget   inspection (membot admin for details)
  membot doctor           check each part the settings use, and say what to fix
  membot version          print the version and exit

Settings come from the environment and from .env (see .env.example).
`

// isHelp tells whether arg asks for usage.
func isHelp(arg string) bool {
	return arg == "help" || arg == "-h" || arg == "--help" || arg == "-help"
}

// run is the whole program; tests call it with their own environment.
func run(ctx context.Context, args []string, getenv app.Getenv, stdout, stderr io.Writer) error {
	cmd := "run"
	if len(args) > 1 {
		cmd = args[1]
	}
	switch {
	case isHelp(cmd), cmd == "migrate" && len(args) > 2 && isHelp(args[2]):
		fmt.Fprint(stdout, usage)
		return nil
	}
	switch cmd {
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, versionLine())
		return nil
	case "admin":
		return admin(ctx, getenv, args[2:], stdout, stderr)
	case "doctor":
		return runDoctor(ctx, getenv, args[2:], stdout, stderr)
	case "run", "migrate":
	default:
		fmt.Fprint(stderr, usage)
		return app.NewConfigError(fmt.Sprintf("unknown command %q", cmd))
	}

	if cmd == "migrate" { // needs the database only, not the bot's tokens
		cfg, err := loadAdminConfig(getenv)
		if err != nil {
			return err
		}
		dsn, stopDatabase, err := database(ctx, cfg, stderr)
		if err != nil {
			return err
		}
		defer stopDatabase()
		return migrate(ctx, dsn, args[2:], stdout)
	}
	cfg, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	cfg.Checks = webChecks(cfg)
	return app.Run(ctx, cfg, app.NewLogger(cfg, stderr))
}

// database is DATABASE_URL, or the embedded PostgreSQL of DATA_DIR, for
// the commands that only read or migrate (their log: warnings only).
func database(ctx context.Context, cfg *app.AdminConfig, stderr io.Writer) (string, func(), error) {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return app.Database(ctx, cfg.Database, log)
}

func migrate(ctx context.Context, databaseURL string, args []string, stdout io.Writer) error {
	sub := "up"
	if len(args) > 0 {
		sub = args[0]
	}
	switch sub {
	case "up":
		applied, err := migrations.Up(ctx, databaseURL)
		for _, name := range applied {
			fmt.Fprintln(stdout, "applied", name)
		}
		if err == nil && len(applied) == 0 {
			fmt.Fprintln(stdout, "the database is up to date")
		}
		return err
	case "status":
		return migrations.WriteStatus(ctx, databaseURL, stdout)
	}
	return app.NewConfigError(fmt.Sprintf("unknown migrate command %q (want up or status)", sub))
}

// The settings and the wiring live in cmd/membot/app, shared with cmd/membench;
// these short names keep this package's files readable.
type configError = app.ConfigError

var (
	loadConfig      = app.LoadConfig
	loadAdminConfig = app.LoadAdminConfig
)
