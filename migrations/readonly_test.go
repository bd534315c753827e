package migrations_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/migrations"
)

// The read-only role, used the way docs/ADMIN.md says: a login role that is
// a member of membot_readonly. It reads every view and table and writes nothing.
func TestReadOnlyRoleReadsButCannotWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	owner, ro := ownerAndReader(t)
	if _, err := owner.Exec(ctx, `INSERT INTO users (telegram_user_id, username) VALUES (7, 'seven')`); err != nil {
		t.Fatal(err)
	}

	for _, q := range []string{
		`SELECT count(*) FROM conversation_log`, `SELECT count(*) FROM daily_usage`, `SELECT count(*) FROM tool_usage`,
		`SELECT count(*) FROM users`, `SELECT count(*) FROM events`, `SELECT count(*) FROM llm_calls`,
		`SELECT count(*) FROM updates`, `SELECT count(*) FROM messages`,
	} {
		if _, err := ro.Exec(ctx, q); err != nil {
			t.Errorf("read-only role cannot read: %s: %v", q, err)
		}
	}
	var name string
	if err := ro.QueryRow(ctx, `SELECT username FROM users WHERE telegram_user_id = 7`).Scan(&name); err != nil || name != "seven" {
		t.Errorf("read-only role read %q, %v", name, err)
	}

	for _, q := range []string{
		`INSERT INTO users (telegram_user_id) VALUES (8)`,
		`UPDATE users SET username = 'changed'`,
		`DELETE FROM users`,
		`INSERT INTO events (type) VALUES ('forged')`,
		`TRUNCATE updates`,
		`DROP VIEW conversation_log`,
		`CREATE TABLE intruder (id int)`,
		// A dead owner's lock, held to stall its chats (00016).
		`SELECT pg_advisory_lock(1835363682, 1)`,
		`SELECT pg_try_advisory_lock_shared(1835363682, 1)`,
		`SELECT pg_advisory_xact_lock(7)`,
	} {
		_, err := ro.Exec(ctx, q)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
			t.Errorf("read-only role could run %s: %v", q, err)
		}
	}
	if err := owner.QueryRow(ctx, `SELECT username FROM users WHERE telegram_user_id = 7`).Scan(&name); err != nil || name != "seven" {
		t.Errorf("the row changed under the read-only role: %q, %v", name, err)
	}
}

// The bot's database user is often no superuser: the migrations must apply
// for a plain owner of the database all the same (the read-only role then
// gets its grants when it exists, and is skipped with a NOTICE when not).
func TestMigrationsApplyForAnOrdinaryDatabaseOwner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin := adminConn(t)
	defer admin.Close(ctx)
	name := fmt.Sprintf("membot_plain_%d", rand.Uint32())
	if _, err := admin.Exec(ctx, `CREATE ROLE `+name+` LOGIN PASSWORD 'plain-pw' NOSUPERUSER NOCREATEROLE`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // after the database is dropped (cleanups run last first)
		admin, err := pgx.Connect(context.Background(), pgtest.AdminURL())
		if err == nil {
			defer admin.Close(context.Background())
			_, err = admin.Exec(context.Background(), `DROP ROLE IF EXISTS `+name)
		}
		if err != nil {
			t.Errorf("drop role: %v", err)
		}
	})
	u, _ := url.Parse(pgtest.URLFor(emptyDatabase(t, name)))
	u.User = url.UserPassword(name, "plain-pw")
	if _, err := migrations.Up(ctx, u.String()); err != nil {
		t.Fatalf("migrations as a plain database owner: %v", err)
	}
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var views int
	conn.QueryRow(ctx, `SELECT count(*) FROM pg_views WHERE viewname IN ('conversation_log', 'daily_usage', 'tool_usage')`).Scan(&views)
	if views != 3 {
		t.Fatalf("%d admin views, want 3", views)
	}
}

// ownerAndReader connects to a fresh migrated database as its owner and as a
// login role that is a member of membot_readonly, the way docs/ADMIN.md says.
func ownerAndReader(t *testing.T) (owner, ro *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	dsn := pgtest.New(t)
	owner, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { owner.Close(ctx) })
	ro, err = pgx.Connect(ctx, pgtest.ReadOnlyURL(t, dsn))
	if err != nil {
		t.Fatalf("connect as a member of membot_readonly: %v", err)
	}
	t.Cleanup(func() { ro.Close(ctx) })
	return owner, ro
}
