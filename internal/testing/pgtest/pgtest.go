// Package pgtest gives each test a fresh, migrated PostgreSQL database.
//
// The server comes from TEST_DATABASE_URL, else postgres@127.0.0.1:5432
// (scripts/test.sh finds or starts one and sets the variable). Without a
// server, tests skip locally; with CI=true they fail, so CI never passes
// without having talked to PostgreSQL.
package pgtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/membot/membot/migrations"
)

// DefaultURL is where a local server is looked for when TEST_DATABASE_URL is unset.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// AdminURL is the URL of the server's maintenance database.
func AdminURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// New creates an empty database with every migration applied, returns its
// URL, and drops it when the test ends.
func New(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin := connect(ctx, t)
	defer admin.Close(context.Background())

	template, err := migratedTemplate(ctx, admin)
	if err != nil {
		t.Fatalf("pgtest: prepare template database: %v", err)
	}
	name := fmt.Sprintf("membot_test_%d_%d", time.Now().UnixNano(), rand.Uint32())
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+template); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() { Drop(t, name) })
	return URLFor(name)
}

// Drop removes a database, closing its connections.
func Drop(t testing.TB, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin := connect(ctx, t)
	defer admin.Close(context.Background())
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		t.Errorf("pgtest: drop database %s: %v", name, err)
	}
}

// URLFor returns the URL of database name on the test server.
func URLFor(name string) string {
	u, err := url.Parse(AdminURL())
	if err != nil {
		panic(fmt.Sprintf("pgtest: TEST_DATABASE_URL is not a URL: %v", err))
	}
	u.Path = "/" + name
	return u.String()
}

func connect(ctx context.Context, t testing.TB) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, AdminURL())
	if err == nil {
		return conn
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("pgtest: no PostgreSQL at TEST_DATABASE_URL or %s (CI=true, so this fails): %v", DefaultURL, err)
	}
	t.Skipf("pgtest: no PostgreSQL reachable, skipping (set TEST_DATABASE_URL or run scripts/test.sh): %v", err)
	return nil
}

// migratedTemplate returns the name of a template database holding the
// current migrations, building it once per migration set. It is built under a
// temporary name and renamed when complete, so that concurrent test processes
// never copy a half-migrated template.
//
// The template has pgvector's extension and the message_embeddings table
// (migration 00019) when the server offers pgvector; with CI=true a server
// without it is an error, so CI never passes without semantic recall tested.
func migratedTemplate(ctx context.Context, admin *pgx.Conn) (string, error) {
	var vectors, exists bool
	if err := admin.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')`).Scan(&vectors); err != nil {
		return "", err
	}
	if !vectors && os.Getenv("CI") == "true" {
		return "", errors.New("the server has no pgvector extension (CI=true, so this fails): " + HowToGetVectors)
	}
	name := "membot_template_" + migrationsHash()
	if vectors { // a template built before pgvector was installed lacks its table
		name += "_v"
	}
	if err := admin.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := fmt.Sprintf("membot_building_%d", rand.Uint32())
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+building); err != nil {
		return "", err
	}
	if _, err := migrations.Up(ctx, URLFor(building)); err != nil {
		admin.Exec(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)")
		return "", err
	}
	_, err := admin.Exec(ctx, "ALTER DATABASE "+building+" RENAME TO "+name)
	var pgErr *pgconn.PgError
	// Another process finished first: 42P04, or 23505 when the two renames
	// raced on pg_database's unique index.
	if errors.As(err, &pgErr) && (pgErr.Code == "42P04" || pgErr.Code == "23505") {
		admin.Exec(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)")
		return name, nil
	}
	return name, err
}

func migrationsHash() string {
	h := sha256.New()
	fs.WalkDir(migrations.Files, ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(migrations.Files, path)
			h.Write([]byte(path))
			h.Write(b)
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// ReadOnlyURL creates a login role that is a member of membot_readonly, the
// way docs/ADMIN.md tells admins to, and returns dsn with that role as the
// user. The role is dropped when the test ends.
func ReadOnlyURL(t testing.TB, dsn string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin := connect(ctx, t)
	defer admin.Close(context.Background())
	role := fmt.Sprintf("membot_analyst_%d", rand.Uint32())
	if _, err := admin.Exec(ctx, "CREATE ROLE "+role+" LOGIN PASSWORD 'analyst-pw' IN ROLE membot_readonly"); err != nil {
		t.Fatalf("pgtest: create a member of membot_readonly (does the role exist?): %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		admin := connect(ctx, t)
		defer admin.Close(context.Background())
		if _, err := admin.Exec(ctx, "DROP ROLE IF EXISTS "+role); err != nil {
			t.Errorf("pgtest: drop role %s: %v", role, err)
		}
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	u.User = url.UserPassword(role, "analyst-pw")
	return u.String()
}

// HowToGetVectors says how to get a test server with pgvector.
const HowToGetVectors = "scripts/pgvector.sh builds it into .cache/pgvector, where scripts/test.sh finds it " +
	"(needs the Debian packages postgresql-server-dev-NN, gcc and make; see README), " +
	"or set TEST_DATABASE_URL to a server that has it"

// RequireVectors stops a test that needs pgvector on a server without it:
// a skip, named in the output with how to get pgvector, except with
// CI=true, where it is a failure.
func RequireVectors(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin := connect(ctx, t)
	defer admin.Close(context.Background())
	var vectors bool
	if err := admin.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')`).Scan(&vectors); err != nil {
		t.Fatalf("pgtest: look for pgvector: %v", err)
	}
	switch {
	case vectors:
	case os.Getenv("CI") == "true":
		t.Fatal("pgtest: the server has no pgvector extension (CI=true, so this fails): " + HowToGetVectors)
	default:
		t.Skip("pgtest: the server has no pgvector extension, so this test is skipped: " + HowToGetVectors)
	}
}
