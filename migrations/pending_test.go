package migrations_test

import (
	"context"
	"io/fs"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/migrations"
)

// Pending, what membot doctor asks, changes nothing: a database never
// migrated is left without a single table (goose's status would make its
// version table); once migrated, every file counts as applied.
func TestPendingLeavesTheDatabaseAsItFoundIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.URLFor(emptyDatabase(t, ""))
	files, err := fs.Glob(migrations.Files, "*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("the migrations: %v %v", files, err)
	}
	applied, pending, err := migrations.Pending(ctx, dsn)
	if err != nil || applied != 0 || len(pending) != len(files) {
		t.Fatalf("Pending on an empty database = %d applied, %d pending, %v; want 0, %d", applied, len(pending), err, len(files))
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var tables int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("after Pending the empty database has %d tables (%v)", tables, err)
	}
	if _, err := migrations.Up(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	if applied, pending, err := migrations.Pending(ctx, dsn); err != nil || applied != len(files) || len(pending) != 0 {
		t.Fatalf("Pending after Up = %d applied, %q pending, %v; want %d, none", applied, pending, err, len(files))
	}
}
