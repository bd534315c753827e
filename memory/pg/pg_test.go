package pg_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/redact"
	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/memory/pg"
)

// setup is a pool over a fresh migrated database, made by NewPool.
func setup(t *testing.T, configure ...func(*pgxpool.Config)) (*pgxpool.Pool, string) {
	t.Helper()
	dsn := pgtest.New(t)
	pool, err := pg.NewPool(context.Background(), dsn, 2, configure...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, dsn
}

func setting(t *testing.T, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, name string) string {
	t.Helper()
	var v string
	if err := q.QueryRow(context.Background(), "SELECT current_setting($1)", name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestNewPoolConnectsWithJITOffUnlessTheURLSaysOtherwise(t *testing.T) {
	t.Parallel()
	var configured bool
	pool, dsn := setup(t, nil, func(c *pgxpool.Config) {
		configured = true
		c.ConnConfig.RuntimeParams["application_name"] = "pg_test"
	})
	if got := setting(t, pool, "jit"); got != "off" {
		t.Errorf("jit = %s, want off", got)
	}
	if got := setting(t, pool, "application_name"); !configured || got != "pg_test" {
		t.Errorf("the configure function was not applied: application_name %q", got)
	}
	if pool.Config().MaxConns != 2 {
		t.Errorf("MaxConns = %d, want 2", pool.Config().MaxConns)
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	on, err := pg.NewPool(context.Background(), dsn+sep+"jit=on", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer on.Close()
	if got := setting(t, on, "jit"); got != "on" {
		t.Errorf("with jit=on in the URL jit = %s", got)
	}
}

func TestNewPoolFailsClearly(t *testing.T) {
	t.Parallel()
	if _, err := pg.NewPool(context.Background(), "postgres://%zz", 1); err == nil || pg.IsUnavailable(err) {
		t.Errorf("a URL that does not parse: %v; want an error, not unavailable", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0") // a port nothing answers on once closed
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = pg.NewPool(context.Background(), "postgres://postgres@"+addr+"/x?sslmode=disable&connect_timeout=5", 1)
	if !errors.Is(err, pg.ErrUnavailable) || !pg.IsUnavailable(err) {
		t.Errorf("no server: %v; want ErrUnavailable", err)
	}
}

func TestTranslate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                  string
		err                   error
		notFound, unavailable bool
	}{
		{"no rows", pgx.ErrNoRows, true, false},
		{"a server shutting down", &pgconn.PgError{Code: "57P01"}, false, true},
		{"a connection failure", &pgconn.PgError{Code: "08006"}, false, true},
		{"too many connections", &pgconn.PgError{Code: "53300"}, false, true},
		{"a unique violation", &pgconn.PgError{Code: "23505"}, false, false},
		{"a connection cut", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), false, true},
		{"refused", &net.OpError{Op: "dial", Err: errors.New("connection refused")}, false, true},
		{"cancelled", context.Canceled, false, false},
		{"timed out by the caller", context.DeadlineExceeded, false, false},
	}
	for _, c := range cases {
		got := pg.Translate(c.err)
		if !errors.Is(got, c.err) || errors.Is(got, pg.ErrNotFound) != c.notFound || errors.Is(got, pg.ErrUnavailable) != c.unavailable {
			t.Errorf("%s: Translate = %v; want not found %v, unavailable %v, wrapping the error", c.name, got, c.notFound, c.unavailable)
		}
		if pg.IsUnavailable(c.err) != c.unavailable {
			t.Errorf("%s: IsUnavailable = %v untranslated", c.name, !c.unavailable)
		}
	}
	if pg.Translate(nil) != nil {
		t.Error("Translate(nil) is not nil")
	}
}

func TestTranslateOnRealFailures(t *testing.T) {
	t.Parallel()
	pool, _ := setup(t)
	ctx := context.Background()
	var n int
	err := pg.Translate(pool.QueryRow(ctx, "SELECT 1 FROM users WHERE false").Scan(&n))
	if !errors.Is(err, pg.ErrNotFound) {
		t.Errorf("no row: %v; want ErrNotFound", err)
	}
	_, err = pool.Exec(ctx, "SELECT 1/0")
	if err = pg.Translate(err); err == nil || errors.Is(err, pg.ErrUnavailable) || errors.Is(err, pg.ErrNotFound) {
		t.Errorf("division by zero: %v; want an error of its own", err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	var pid int
	conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid)
	if _, err := pool.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, "SELECT 1")
	if !pg.IsUnavailable(err) || !errors.Is(pg.Translate(err), pg.ErrUnavailable) {
		t.Errorf("a connection the server ended: %v; want unavailable", err)
	}
}

func TestSessionStatementsHoldForTheirTransactionOnly(t *testing.T) {
	t.Parallel()
	pool, _ := setup(t)
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{pg.AsyncCommitSQL, pg.GenericPlansSQL} {
		if _, err := tx.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{"synchronous_commit": "off", "plan_cache_mode": "force_generic_plan", "enable_seqscan": "off", "jit": "off"} {
		if got := setting(t, tx, name); got != want {
			t.Errorf("in the transaction %s = %s, want %s", name, got, want)
		}
	}
	tx.Commit(ctx)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for name, want := range map[string]string{"synchronous_commit": "on", "plan_cache_mode": "auto", "enable_seqscan": "on"} {
		if got := setting(t, conn, name); got != want {
			t.Errorf("after the transaction %s = %s, want %s", name, got, want)
		}
	}
}

// Text and JSON from outside are made storable: PostgreSQL takes what
// CleanText and CleanJSON give, whatever came in.
func TestHostileTextAndJSONAreStored(t *testing.T) {
	t.Parallel()
	pool, _ := setup(t)
	ctx := context.Background()
	texts := map[string]string{
		"clean":        "привет",
		"a NUL":        "a\x00b",
		"invalid":      "a\xffb\xc3",
		"both":         "\x00\xfe",
		"only a NUL":   "\x00",
		"an empty one": "",
	}
	want := map[string]string{"clean": "привет", "a NUL": "ab", "invalid": "a\uFFFDb\uFFFD", "both": "\uFFFD", "only a NUL": "", "an empty one": ""}
	for name, s := range texts {
		var stored string
		if err := pool.QueryRow(ctx, "SELECT $1::text", pg.CleanText(s)).Scan(&stored); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if stored != want[name] {
			t.Errorf("%s: stored %q, want %q", name, stored, want[name])
		}
	}
	docs := map[string]string{
		"clean, untouched":  `{"n": 1.50, "s": "x"}`,
		"an escaped NUL":    `{"s": "a\u0000b", "k\u0000": [1]}`,
		"a lone surrogate":  `{"s": "\ud800x"}`,
		"a valid pair":      `{"s": "\ud83d\ude00"}`,
		"invalid UTF-8":     "{\"s\": \"a\xffb\"}",
		"a big number kept": `{"n": 12345678901234567890}`,
	}
	for name, doc := range docs {
		clean, err := pg.CleanJSON([]byte(doc))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var stored string
		if err := pool.QueryRow(ctx, "SELECT $1::jsonb::text", string(clean)).Scan(&stored); err != nil {
			t.Errorf("%s: PostgreSQL refused %s: %v", name, clean, err)
		}
		if strings.Contains(stored, `\u0000`) {
			t.Errorf("%s: stored %s", name, stored)
		}
		if name == "clean, untouched" && string(clean) != doc {
			t.Errorf("a clean document was changed: %s", clean)
		}
		if name == "a big number kept" && !strings.Contains(stored, "12345678901234567890") {
			t.Errorf("a number changed: %s", stored)
		}
	}
	if _, err := pg.CleanJSON([]byte("{\"s\": \"\xff")); err == nil {
		t.Error("a broken document was cleaned")
	}
}

func TestSecretsAreTakenOutOfWhatIsStored(t *testing.T) {
	t.Parallel()
	var s pg.Secrets
	token := "123456:ABCdefGHIjklMNOpqrSTUvwxYZ"
	if got := s.Storable("token " + token + "\x00"); got != "token "+token {
		t.Errorf("before Hide: %q; want cleaned, nothing hidden", got)
	}
	s.Hide(redact.New(token))
	if got := s.Storable("Unauthorized: bot" + token + "/getMe\x00"); strings.Contains(got, token) || strings.Contains(got, "\x00") {
		t.Errorf("Storable = %q; want the token taken out", got)
	}
	v := s.StorableValue(map[string]any{"error": "key " + token, token: []any{"x" + token, 3.0}})
	data, _ := json.Marshal(v)
	if strings.Contains(string(data), token) || !strings.Contains(string(data), "3") {
		t.Errorf("StorableValue = %s; want every string without the token, numbers kept", data)
	}
}
