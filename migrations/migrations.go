// Package migrations holds membot's numbered SQL migrations, embedded into the
// binary, and applies them with goose. Two processes starting at once are
// safe: goose serialises them with a PostgreSQL advisory lock.
package migrations

import (
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

//go:embed *.sql
var Files embed.FS

// Up applies every migration that has not been applied yet.
func Up(ctx context.Context, dsn string) ([]string, error) {
	var applied []string
	err := withProvider(dsn, func(p *goose.Provider) error {
		results, err := p.Up(ctx)
		for _, r := range results {
			applied = append(applied, r.Source.Path)
		}
		return err
	})
	if err != nil {
		return applied, fmt.Errorf("apply migrations: %w", err)
	}
	return applied, nil
}

// Summary is the one line that says which migrations Up applied
// ("applied 37 migrations (00001..00037)"), or "" when none.
func Summary(applied []string) string {
	number := func(file string) string { n, _, _ := strings.Cut(file, "_"); return n }
	switch len(applied) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("applied 1 migration (%s)", number(applied[0]))
	}
	return fmt.Sprintf("applied %d migrations (%s..%s)", len(applied), number(applied[0]), number(applied[len(applied)-1]))
}

// WriteStatus prints one line per migration: applied (with when) or pending.
func WriteStatus(ctx context.Context, dsn string, w io.Writer) error {
	return withProvider(dsn, func(p *goose.Provider) error {
		statuses, err := p.Status(ctx)
		if err != nil {
			return fmt.Errorf("migration status: %w", err)
		}
		for _, s := range statuses {
			if s.State == goose.StatePending {
				fmt.Fprintf(w, "pending  %s\n", s.Source.Path)
				continue
			}
			fmt.Fprintf(w, "applied  %s (%s)\n", s.Source.Path, s.AppliedAt.UTC().Format(time.RFC3339))
		}
		return nil
	})
}

// Pending counts the migrations applied and names those still pending. It
// changes nothing: a database never migrated gets no version table from it.
func Pending(ctx context.Context, dsn string) (applied int, pending []string, err error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return 0, nil, fmt.Errorf("migration status: %w", err)
	}
	var versioned bool
	err = conn.QueryRow(ctx, "SELECT to_regclass('goose_db_version') IS NOT NULL").Scan(&versioned)
	conn.Close(ctx)
	if err != nil {
		return 0, nil, fmt.Errorf("migration status: %w", err)
	}
	if !versioned {
		names, err := fs.Glob(Files, "*.sql")
		return 0, names, err
	}
	err = withProvider(dsn, func(p *goose.Provider) error {
		statuses, err := p.Status(ctx)
		if err != nil {
			return fmt.Errorf("migration status: %w", err)
		}
		for _, s := range statuses {
			if s.State == goose.StatePending {
				pending = append(pending, s.Source.Path)
			} else {
				applied++
			}
		}
		return nil
	})
	return applied, pending, err
}

func withProvider(dsn string, fn func(*goose.Provider) error) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return fmt.Errorf("parse database url: %w", err)
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return err
	}
	// Out of order: numbers are reserved per feature while several are
	// built at once, so a database that ran a development build may have a
	// later number applied before an earlier one lands; each migration
	// stands on its own.
	p, err := goose.NewProvider(goose.DialectPostgres, db, Files,
		goose.WithSessionLocker(locker), goose.WithDisableGlobalRegistry(true), goose.WithAllowOutofOrder(true))
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	return fn(p)
}
