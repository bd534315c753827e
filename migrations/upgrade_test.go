package migrations_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/migrations"
)

// A database upgraded with messages in it: 00022 stores the stems of the
// rows that were already there, and the index finds them.
func TestStoredStemsCoverTheRowsOfAnUpgradedDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := upgradedWith(t, 21, `('user', '[Текущее время: 2026-01-05 10:00] My cats sleep on the sofa'), ('tool', '{"cats": 2}')`)
	var found, tools int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE role = 'user' AND search_vector @@ membot_search_query('cat')),
		count(*) FILTER (WHERE role = 'tool' AND search_vector IS NULL) FROM messages`).Scan(&found, &tools); err != nil {
		t.Fatal(err)
	}
	if found != 1 || tools != 1 {
		t.Fatalf("after the upgrade: %d user rows found by their stems (want 1), %d tool rows without stems (want 1)", found, tools)
	}
	var viaIndex int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM messages m WHERE m.role IN ('user', 'assistant')
		AND membot_search_keys(m.conversation_id, m.search_vector) @@ membot_search_query('sofas', membot_search_prefix(m.conversation_id))`).Scan(&viaIndex); err != nil || viaIndex != 1 {
		t.Fatalf("the index expression finds %d rows, %v; want 1", viaIndex, err)
	}
}

// The search functions of 00023 (compiled once per connection) give the
// stems and index keys of 00022's, which the stored column and the index
// hold; and membot_ts_config is inlined where it is planned.
func TestCompiledSearchFunctionsKeepTheStoredStemsAndKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, dsn := databaseAt(t, 22)
	const values = `SELECT string_agg(membot_search_vector(t)::text || ' | ' ||
		membot_search_keys('11111111-2222-3333-4444-555555555555', membot_search_vector(t))::text, E'\n' ORDER BY t)
		FROM unnest(ARRAY['[Текущее время: 2026-01-05 10:00] My cats sleep on the sofa', 'Мы ездили в Казань в поездку',
			'42 ok 7', '', '日本語のテキスト', 'running runners ran']) t`
	var before, after string
	if err := db.QueryRowContext(ctx, values).Scan(&before); err != nil {
		t.Fatal(err)
	}
	if _, err := migrations.Up(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, values).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Fatalf("stems and keys changed:\n%s\nwere\n%s", after, before)
	}
	plan := explained(t, db, `EXPLAIN (VERBOSE, COSTS OFF) SELECT membot_ts_config(content) FROM messages`)
	if !strings.Contains(plan, "CASE") {
		t.Fatalf("membot_ts_config is not inlined: %s", plan)
	}
}

// explained is the text of an EXPLAIN run on db.
func explained(t *testing.T, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, explain string) string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), explain)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan += line + "\n"
	}
	return plan
}

// databaseAt creates a database migrated up to version (0: none).
func databaseAt(t *testing.T, version int64) (*sql.DB, string) {
	t.Helper()
	ctx := context.Background()
	dsn := pgtest.URLFor(emptyDatabase(t, ""))
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { db.Close() })
	if version == 0 {
		return db, dsn
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.Files,
		goose.WithDisableGlobalRegistry(true), goose.WithAllowOutofOrder(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, version); err != nil {
		t.Fatal(err)
	}
	return db, dsn
}

// emptyDatabase creates a database, owned by owner unless "", that is
// dropped after the test, and returns its name.
func emptyDatabase(t *testing.T, owner string) string {
	t.Helper()
	ctx := context.Background()
	admin := adminConn(t)
	defer admin.Close(ctx)
	name := fmt.Sprintf("membot_migrations_%d", rand.Uint32())
	create := `CREATE DATABASE ` + name
	if owner != "" {
		create += ` OWNER ` + owner
	}
	if _, err := admin.Exec(ctx, create); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pgtest.Drop(t, name) })
	return name
}

// adminConn connects to the test server as its superuser.
func adminConn(t *testing.T) *pgx.Conn {
	t.Helper()
	admin, err := pgx.Connect(context.Background(), pgtest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	return admin
}

func exec(t *testing.T, db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, q string) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// 00026 keeps the stems a row had when they were a generated column, and
// whatever inserts or changes a row without naming them (COPY, an admin's
// SQL) still stores the stems of its content: a trigger fills them in.
func TestStemsAreKeptWithoutAGeneratedColumn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, dsn := upgradedWith(t, 25, `('user', 'My cats sleep on the sofa')`)
	exec(t, db, `INSERT INTO messages (conversation_id, role, content) VALUES
		('11111111-2222-3333-4444-555555555555', 'assistant', 'Мы ездили в Казань'),
		('11111111-2222-3333-4444-555555555555', 'tool', '{"cats": 2}'),
		('11111111-2222-3333-4444-555555555555', 'system', 'Tools used: remember')`)
	exec(t, db, `COPY messages (conversation_id, role, content) FROM PROGRAM 'echo 11111111-2222-3333-4444-555555555555,user,parrots sing' WITH (FORMAT csv)`)
	exec(t, db, `UPDATE messages SET content = 'My dogs sleep on the sofa' WHERE content = 'My cats sleep on the sofa'`)
	exec(t, db, `UPDATE messages SET search_vector = 'forged' WHERE role = 'assistant'`)
	var wrong int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE search_vector IS DISTINCT FROM
		CASE WHEN role IN ('user', 'assistant') THEN membot_search_vector(content) END`).Scan(&wrong); err != nil {
		t.Fatal(err)
	}
	// The rule is inlined where the bot's inserts are planned (a SQL
	// function that is not was parsed and planned at every call).
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	exec(t, conn, `SET plan_cache_mode = force_generic_plan`)
	exec(t, conn, `PREPARE stems(text, text) AS INSERT INTO messages (conversation_id, role, content, search_vector)
		VALUES ('11111111-2222-3333-4444-555555555555', $1, $2, membot_message_stems($1, $2))`)
	plan := explained(t, conn, `EXPLAIN (VERBOSE, COSTS OFF) EXECUTE stems('user', 'hi')`)
	if !strings.Contains(plan, "membot_search_vector") || strings.Contains(plan, "membot_message_stems") {
		t.Fatalf("membot_message_stems is not inlined into the insert:\n%s", plan)
	}
	if wrong != 0 {
		t.Fatalf("%d rows keep stems other than their content's", wrong)
	}
	dogs := func() (n int) {
		t.Helper()
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM messages m WHERE m.role IN ('user', 'assistant')
			AND membot_search_keys(m.conversation_id, m.search_vector) @@ membot_search_query('dog', membot_search_prefix(m.conversation_id))`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := dogs(); n != 1 {
		t.Fatalf("the index finds %d rows about dogs; want 1", n)
	}
	// Undone (00026 and 00025), the column is generated again, with the
	// same stems; done again, it is a plain one.
	if err := migrations.DownTo(ctx, dsn, 24); err != nil {
		t.Fatal(err)
	}
	var generated string
	if err := db.QueryRowContext(ctx, `SELECT attgenerated FROM pg_attribute
		WHERE attrelid = 'messages'::regclass AND attname = 'search_vector'`).Scan(&generated); err != nil || generated != "s" {
		t.Fatalf("after the Down search_vector is generated %q, %v; want stored", generated, err)
	}
	if n := dogs(); n != 1 {
		t.Fatalf("after the Down the index finds %d rows about dogs; want 1", n)
	}
	if _, err := migrations.Up(ctx, dsn); err != nil {
		t.Fatal(err)
	}
}

// aConversation adds user 1 and their conversation
// 11111111-2222-3333-4444-555555555555 in chat 1.
// upgradedWith is a database at version whose conversation (aConversation)
// holds messages, rows of (role, content) in SQL, migrated to the newest
// version then.
func upgradedWith(t *testing.T, version int64, messages string) (*sql.DB, string) {
	t.Helper()
	db, dsn := databaseAt(t, version)
	aConversation(t, db)
	exec(t, db, `INSERT INTO messages (conversation_id, role, content)
		SELECT '11111111-2222-3333-4444-555555555555', role, content FROM (VALUES `+messages+`) m (role, content)`)
	if _, err := migrations.Up(context.Background(), dsn); err != nil {
		t.Fatal(err)
	}
	return db, dsn
}

func aConversation(t *testing.T, db *sql.DB) {
	t.Helper()
	exec(t, db, `INSERT INTO users (telegram_user_id, first_name) VALUES (1, 'Ann')`)
	exec(t, db, `INSERT INTO conversations (id, telegram_user_id, chat_id) VALUES ('11111111-2222-3333-4444-555555555555', 1, 1)`)
}
