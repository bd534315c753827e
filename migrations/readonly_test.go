package migrations_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/membot/membot/internal/pgtest"
)

// The read-only role, used the way docs/ADMIN.md says: a login role that is
// a member of membot_readonly. It reads every view and table and writes nothing.
func TestReadOnlyRoleReadsButCannotWrite(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.New(t)
	owner, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close(ctx)
	if _, err := owner.Exec(ctx, `INSERT INTO users (telegram_user_id, username) VALUES (7, 'seven')`); err != nil {
		t.Fatal(err)
	}

	ro, err := pgx.Connect(ctx, pgtest.ReadOnlyURL(t, dsn))
	if err != nil {
		t.Fatalf("connect as a member of membot_readonly: %v", err)
	}
	defer ro.Close(ctx)

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
