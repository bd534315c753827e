package memory

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/internal/sqlfile"
	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/sqlcheck"
)

// TestEveryStatementIsRun: no statement of sql/*.sql lies there unused.
func TestEveryStatementIsRun(t *testing.T) { sqlcheck.AllRun(t, statements) }

// needsVectors are the statements that read or write message_embeddings,
// which exists only where the server has pgvector.
var needsVectors = map[string]bool{
	"saveEmbeddings": true,
	"searchHybrid":   true,
	"turnRecall":     true,
	"turnRankHybrid": true,
}

// TestEveryStatementPrepares: every statement of memory and of its
// sub-packages (each directory with sql/*.sql, read from disk, so a new
// package is covered without a line here) parses and plans against the
// migrated schema: its tables, columns, functions and argument types.
// Named arguments (@user_id) are rewritten to $n the way pgx does first.
func TestEveryStatementPrepares(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var vectors bool
	if _, err := conn.Exec(ctx, statement("enableVectors")); err == nil {
		err = conn.QueryRow(ctx, `SELECT to_regclass('message_embeddings') IS NOT NULL`).Scan(&vectors)
		if err != nil {
			t.Fatal(err)
		}
	}
	dirs, err := filepath.Glob("*/sql")
	if err != nil {
		t.Fatal(err)
	}
	dirs = append([]string{"sql"}, dirs...)
	total := 0
	for _, dir := range dirs {
		pkg := filepath.Dir(dir)
		set := sqlfile.Load(os.DirFS(pkg), filepath.Join("memory", pkg))
		for _, name := range set.Names() {
			total++
			text, _ := set.Lookup(name)
			t.Run(filepath.Join(pkg, name), func(t *testing.T) {
				if needsVectors[name] && !vectors {
					pgtest.RequireVectors(t)
				}
				sql, _, err := pgx.NamedArgs{}.RewriteQuery(ctx, conn, text, nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := conn.Prepare(ctx, "", sql); err != nil {
					t.Errorf("%v\n%s", err, sql)
				}
			})
		}
	}
	if total < 100 {
		t.Errorf("only %d statements found in %v", total, dirs)
	}
}
