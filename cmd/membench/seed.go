package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/testing/seed"
	"github.com/membot/membot/migrations"
)

func seedCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("membench seed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	defaultSeedDB, _ := databaseURL(defaultDB, "membench_seed")
	var plan seed.Plan
	dbURL := fs.String("db", defaultSeedDB, "PostgreSQL URL of the database to fill; created when missing, migrated, and added to (ids continue after what is there)")
	fs.Int64Var(&plan.Messages, "messages", 10_000_000, "message rows to add, about")
	fs.IntVar(&plan.Chats, "chats", 0, "chats (one user and one conversation each); 0: one per 200 messages")
	fs.IntVar(&plan.Giants, "giants", -1, "conversations of -giant-size messages; -1: one per million messages, at most 5")
	fs.IntVar(&plan.GiantSize, "giant-size", 100_000, "messages of each giant conversation")
	fs.Uint64Var(&plan.Seed, "seed", 1, "random seed; the same flags give the same history")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if plan.Messages < 2 {
		return errors.New("-messages must be at least 2")
	}
	if plan.Giants < 0 {
		plan.Giants = int(min(5, plan.Messages/1_000_000))
	}

	if err := ensureDatabase(ctx, *dbURL); err != nil {
		return err
	}
	if _, err := migrations.Up(ctx, *dbURL); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	pool, err := pgxpool.New(ctx, *dbURL)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer pool.Close()

	start := time.Now()
	var shown int64
	plan.Progress = func(rows int64) {
		if rows/1_000_000 > shown { // once a million rows
			shown = rows / 1_000_000
			fmt.Fprintf(stderr, "membench seed: about %s message rows in %s\n", thousands(shown*1_000_000), time.Since(start).Round(time.Second))
		}
	}
	res, err := seed.Fill(ctx, pool, plan)
	if err != nil {
		return err
	}
	var size string
	pool.QueryRow(ctx, `SELECT pg_size_pretty(pg_database_size(current_database()))`).Scan(&size)
	fmt.Fprintf(stdout, "seeded %s messages in %d chats (ids %d to %d; the largest conversation has %s messages), "+
		"%s updates, %s events and %s model calls in %s; the database is now %s\n",
		thousands(res.Messages), res.LastChatID-res.FirstChatID+1, res.FirstChatID, res.LastChatID, thousands(res.Largest),
		thousands(res.Updates), thousands(res.Events), thousands(res.LLMCalls), time.Since(start).Round(time.Second), size)
	return nil
}

// ensureDatabase creates the database of dbURL when it does not exist.
func ensureDatabase(ctx context.Context, dbURL string) error {
	conn, err := pgconn.Connect(ctx, dbURL)
	if err == nil {
		return conn.Close(ctx)
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "3D000" { // invalid_catalog_name: no such database
		return fmt.Errorf("connect: %w", err)
	}
	cfg, err := pgconn.ParseConfig(dbURL)
	if err != nil {
		return err
	}
	server, err := databaseURL(dbURL, "postgres")
	if err != nil {
		return err
	}
	_, err = createDatabase(ctx, server, cfg.Database)
	return err
}
