package migrations_test

import (
	"context"
	"os"
	osexec "os/exec"
	"path/filepath"
	"testing"

	"github.com/membot/membot/migrations"
)

// A pg_dump of membot's database restores (docs/OPERATIONS.md): pg_restore
// loads the rows with an empty search_path, and computing the stored stems
// and the index keys then must not depend on it (00023).
func TestADumpRestores(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"pg_dump", "pg_restore"} {
		if _, err := osexec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed (CI=true, so this fails)", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
	ctx := context.Background()
	db, dsn := databaseAt(t, 0)
	if _, err := migrations.Up(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	exec(t, db, `INSERT INTO users (telegram_user_id, first_name) VALUES (1, 'Ann')`)
	exec(t, db, `INSERT INTO conversations (id, telegram_user_id, chat_id) VALUES ('11111111-2222-3333-4444-555555555555', 1, 1)`)
	exec(t, db, `INSERT INTO messages (conversation_id, role, content) VALUES
		('11111111-2222-3333-4444-555555555555', 'user', '[Текущее время: 2026-01-05 10:00] My cats sleep on the sofa')`)

	dump := filepath.Join(t.TempDir(), "membot.dump")
	run(t, "pg_dump", "-Fc", "-f", dump, "-d", dsn)
	restored, restoredDSN := databaseAt(t, 0)
	run(t, "pg_restore", "--no-owner", "--exit-on-error", "-d", restoredDSN, dump)

	var found int
	if err := restored.QueryRowContext(ctx, `SELECT count(*) FROM messages m WHERE m.role IN ('user', 'assistant')
		AND membot_search_keys(m.conversation_id, m.search_vector) @@ membot_search_query('sofas', membot_search_prefix(m.conversation_id))`).Scan(&found); err != nil || found != 1 {
		t.Fatalf("the restored database finds %d rows by their stems, %v; want 1", found, err)
	}
}

func run(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := osexec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
}
