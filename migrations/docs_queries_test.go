package migrations_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// docQuery is one SQL statement of the documentation, titled by the
// comment line that introduces it.
type docQuery struct {
	Title, SQL string
}

// documentedQueries reads the statements of the ```sql blocks in file
// that come after the heading from, up to the next heading of the same
// or a higher level. A statement ends with a line ending in ";"; a block
// with two statements under one comment titles the second "<title> (2)".
func documentedQueries(t *testing.T, file, from string) []docQuery {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	level := strings.Index(from, " ")
	var out []docQuery
	var inside, inBlock bool
	var title string
	var sql strings.Builder
	n := 0
	scan := bufio.NewScanner(f)
	for scan.Scan() {
		line := scan.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case !inBlock && line == from:
			inside = true
			continue
		case !inBlock && inside && strings.HasPrefix(line, "#") && strings.Index(line, " ") <= level:
			inside = false
		}
		if !inside {
			continue
		}
		if strings.HasPrefix(trimmed, "```") {
			inBlock = strings.HasPrefix(trimmed, "```sql") && !inBlock
			title, n = "", 0
			continue
		}
		if !inBlock {
			continue
		}
		if strings.HasPrefix(trimmed, "--") {
			if sql.Len() == 0 && (title == "" || n > 0) {
				title, n = strings.TrimSpace(strings.TrimPrefix(trimmed, "--")), 0
			}
			continue
		}
		if trimmed == "" {
			continue
		}
		sql.WriteString(line + "\n")
		if strings.HasSuffix(trimmed, ";") {
			n++
			name := title
			if n > 1 {
				name = title + " (" + string(rune('0'+n)) + ")"
			}
			out = append(out, docQuery{Title: name, SQL: strings.TrimSuffix(strings.TrimSpace(sql.String()), ";")})
			sql.Reset()
		}
	}
	if err := scan.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every ready query docs/ADMIN.md offers gives its known answer on
// a known database, run as a member of the read-only role in sessions whose
// time zone is not the bot's (UTC and New York): "today" is the bot's day
// whatever the session's zone, and a group's messages count for their
// authors. A documented query without a known answer here fails the test.
func TestDocumentedQueriesGiveTheirKnownAnswers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	owner, ro := ownerAndReader(t)
	f := seedDocsFixture(t, owner)

	queries := documentedQueries(t, "../docs/ADMIN.md", "## Ready queries")
	if len(queries) < 30 {
		t.Fatalf("found %d documented queries; the headings moved?", len(queries))
	}
	for _, zone := range []string{"UTC", "America/New_York"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ro.Exec(ctx, "SET TIME ZONE '"+zone+"'"); err != nil {
			t.Fatal(err)
		}
		want := f.answers(loc)
		seen := map[string]bool{}
		for _, q := range queries {
			seen[q.Title] = true
			answer, ok := want[q.Title]
			if !ok {
				t.Errorf("the documented query %q has no known answer in this test", q.Title)
				continue
			}
			var got string
			if err := ro.QueryRow(ctx, `SELECT coalesce(json_agg(q), '[]'::json)::text FROM (`+q.SQL+`) q`).Scan(&got); err != nil {
				t.Errorf("%s, session in %s: %v", q.Title, zone, err)
				continue
			}
			if g, w := normalized(t, got, answer.unordered), normalized(t, mustJSON(t, answer.rows), answer.unordered); !reflect.DeepEqual(g, w) {
				t.Errorf("%s, session in %s:\n got %s\nwant %s", q.Title, zone, mustJSON(t, g), mustJSON(t, w))
			}
		}
		for title := range want {
			if !seen[title] {
				t.Errorf("the known answer of %q has no documented query", title)
			}
		}
	}
}

type row = map[string]any

type known struct {
	rows      []row
	unordered bool // the query has no ORDER BY: compare as a set
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// normalized decodes a JSON array of rows, sorted when order is not promised.
func normalized(t *testing.T, text string, unordered bool) []any {
	t.Helper()
	var v []any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%v: %s", err, text)
	}
	if v == nil {
		v = []any{}
	}
	if unordered {
		sort.Slice(v, func(i, j int) bool { return mustJSON(t, v[i]) < mustJSON(t, v[j]) })
	}
	return v
}

// docsFixture is the known database: a private chat of ann (whose id the
// documented queries use), a group where ann and bob write (bob opened its
// conversation), a stranger, and rows of every kind the queries read, today
// (in Moscow, the bot's zone: between its midnight and now, in the first
// hour, which a day read in the session's zone would miss), yesterday and
// ten days ago.
type docsFixture struct {
	now, today, yesterday, old time.Time
	msk                        *time.Location
}

const (
	ann, bob, cat = 123456789, 222, 333
	group         = -100500
	c1, c2        = "00000000-0000-0000-0000-0000000000c1", "00000000-0000-0000-0000-0000000000c2"
	toolCalls     = `[{"id": "call_1", "name": "calculator", "arguments": "{}"}, {"id": "call_2", "name": "calculator", "arguments": "{}"}, {"id": "call_3", "name": "fetch_url", "arguments": "{}"}]`
)

func seedDocsFixture(t *testing.T, db *pgx.Conn) *docsFixture {
	t.Helper()
	msk, err := time.LoadLocation("Europe/Moscow")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Truncate(time.Second)
	local := now.In(msk)
	midnight := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, msk)
	f := &docsFixture{now: now, msk: msk, today: midnight.Add(min(now.Sub(midnight)/2, time.Hour)).Truncate(time.Second),
		yesterday: midnight.Add(-time.Hour), old: now.Add(-10 * 24 * time.Hour)}
	t1, yest, old := f.today, f.yesterday, f.old
	stamped := "[Текущее время: " + t1.In(msk).Format("2006-01-02 15:04") + "] I need a passport renewal"
	for _, s := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO users (telegram_user_id, username, first_name, created_at) VALUES
			($1, 'ann', 'Ann', $4), ($2, 'bob', 'Bob', $5), ($3, 'cat', 'Cat', $6)`, []any{ann, bob, cat, t1, now.Add(-30 * 24 * time.Hour), yest}},
		{`INSERT INTO conversations (id, telegram_user_id, chat_id, created_at) VALUES
			($1, $3, $3, $5), ($2, $4, $6, $5)`, []any{c1, c2, ann, bob, old, group}},
		{`INSERT INTO messages (id, conversation_id, role, content, tool_calls, tool_call_id, tool_name, update_id, metadata, created_at)
		  OVERRIDING SYSTEM VALUE VALUES
			(1, $1, 'user', 'an old question', NULL, NULL, NULL, 6, $3, $5),
			(2, $1, 'user', $7, NULL, NULL, NULL, 1, $3, $6),
			(3, $1, 'assistant', '', $8, NULL, NULL, NULL, '{}', $6),
			(4, $1, 'tool', '42', NULL, 'call_1', 'calculator', NULL, '{"duration_ms": 10}', $6),
			(5, $1, 'tool', '43', NULL, 'call_2', 'calculator', NULL, '{"duration_ms": 20}', $6),
			(6, $1, 'tool', 'refused', NULL, 'call_3', 'fetch_url', NULL, '{"duration_ms": 30, "error": "refused"}', $6),
			(7, $1, 'assistant', 'Your visa is fine', NULL, NULL, NULL, NULL, '{}', $6),
			(8, $2, 'user', '[Ann] hi all', NULL, NULL, NULL, 3, $3, $6),
			(9, $2, 'user', '[Ann] again', NULL, NULL, NULL, 4, $3, $6),
			(10, $2, 'user', '[Bob] hello', NULL, NULL, NULL, 5, $4, $6),
			(11, $2, 'assistant', 'hello both', NULL, NULL, NULL, NULL, '{}', $6)`,
			[]any{c1, c2, `{"author_id": 123456789}`, `{"author_id": 222}`, old, t1, stamped, toolCalls}},
		{`INSERT INTO events (type, telegram_user_id, chat_id, update_id, payload, occurred_at) VALUES
			('message_received', $1, $1, 1, '{"kind": "text"}', $4),
			('message_received', $1, $3, 3, '{"kind": "text"}', $4),
			('message_received', $1, $3, 4, '{"kind": "text"}', $4),
			('message_received', $2, $3, 5, '{"kind": "text"}', $4),
			('message_received', $1, $1, 6, '{"kind": "text"}', $6),
			('reply_sent', $1, $1, 1, '{"turn_ms": 100}', $4),
			('reply_sent', $1, $3, 3, '{"turn_ms": 300}', $4),
			('reply_sent', $1, $1, 12, '{"turn_ms": 50}', $5),
			('tool_called', $1, $1, NULL, '{"tool": "calculator", "duration_ms": 10}', $4),
			('tool_called', $1, $1, NULL, '{"tool": "calculator", "duration_ms": 20}', $4),
			('tool_called', $1, $1, NULL, '{"tool": "fetch_url", "duration_ms": 30, "error": "refused"}', $4),
			('rate_limited', $1, $1, 13, '{"limit": "tokens"}', $4),
			('rate_limited', $2, $2, 14, '{"limit": "rate"}', $5),
			('approval_requested', $1, $1, NULL, '{"approval_id": 17}', $4),
			('approval_requested', $1, $1, NULL, '{"approval_id": 18}', $4),
			('approval_decided', $1, $1, NULL, '{"approval_id": 17}', $7),
			('conversation_reset', $1, $1, NULL, '{"deleted_messages": 5}', $4)`,
			[]any{ann, bob, group, t1, yest, old, t1.Add(5 * time.Minute)}},
		{`INSERT INTO llm_calls (telegram_user_id, chat_id, model, prompt_tokens, completion_tokens, latency_ms, status, error, created_at) VALUES
			($1, $1, 'm1', 100, 20, 100, 'ok', NULL, $3),
			($1, $1, 'm1', 200, 30, 300, 'ok', NULL, $3),
			($1, $1, 'm1', 0, 0, 50, '500', 'boom', $3),
			($1, $1, 'm1', 0, 0, 60, 'timeout', 'slow', $4),
			($2, $2, 'm2', 50, 5, 200, 'ok', NULL, $3)`, []any{ann, bob, t1, yest}},
		{`INSERT INTO access_refusals (telegram_user_id, chat_id, day, refused_update_id, attempts, first_at, last_at) VALUES
			($1, $1, $2, 9, 3, $3, $3), ($1, $1, $4, 8, 1, $5, $5)`,
			[]any{cat, t1.In(msk).Format("2006-01-02"), t1, yest.In(msk).Format("2006-01-02"), yest}},
		{`INSERT INTO updates (update_id, chat_id, payload, digest, state, attempts, error, received_at)
		  SELECT id, chat, jsonb_build_object('update_id', id), md5(id::text)::uuid, state, attempts, error, at
		  FROM (VALUES (1, $1::bigint, 'done', 1, NULL, $3::timestamptz), (3, $2, 'done', 1, NULL, $3), (4, $2, 'done', 1, NULL, $3),
			(5, $2, 'done', 1, NULL, $3), (7, $1, 'done', 2, 'given up: boom', $4), (11, $1, 'pending', 0, NULL, $3))
			AS u (id, chat, state, attempts, error, at)`, []any{ann, group, t1, yest}},
		{`INSERT INTO mode_switches (conversation_id, chat_id, from_mode, to_mode, switched_at, reason) VALUES ($1, $2, 'default', 'concise', $3, 'command')`,
			[]any{c1, ann, t1}},
		{`INSERT INTO conversation_rollbacks (conversation_id, chat_id, command, update_id, first_removed_id, removed, created_at)
		  VALUES ($1, $2, 'undo', 15, 99, 2, $3)`, []any{c1, ann, t1}},
		{`INSERT INTO memories (id, telegram_user_id, content, source_message_id, created_at, updated_at) OVERRIDING SYSTEM VALUE VALUES
			(1, $1, 'Lives in Kazan', 2, $2, $2), (2, $1, 'Likes tea', NULL, $3, $3)`, []any{ann, t1, yest}},
		// A fact corrected since: no longer what the model sees.
		{`INSERT INTO memories (id, telegram_user_id, content, source_message_id, created_at, updated_at, superseded_by, valid_until)
			OVERRIDING SYSTEM VALUE VALUES (3, $1, 'Lives in Samara', NULL, $2, $2, 1, $3)`, []any{ann, old, t1}},
		{`INSERT INTO reminders (id, telegram_user_id, chat_id, text, due_at, status, sent_at, late, attempts, error) OVERRIDING SYSTEM VALUE VALUES
			(1, $1, $1, 'call mum', $2, 'pending', NULL, false, 0, NULL),
			(2, $1, $1, 'stretch', $3, 'sent', $4, true, 1, NULL),
			(3, $1, $1, 'water plants', $5, 'failed', NULL, false, 3, 'Forbidden: bot was blocked by the user')`,
			[]any{ann, now.Add(time.Hour), yest, yest.Add(2 * time.Minute), yest.Add(-time.Hour)}},
		{`INSERT INTO pending_approvals (id, request_id, subject, details, conversation_id, assistant_message_id, telegram_user_id, chat_id,
			status, created_at, decision_at, decided_by) OVERRIDING SYSTEM VALUE VALUES
			(17, 'call_3', 'fetch_url', '{"url": "https://example.com/a"}', $1, 3, $2, $2, 'approved', $3, $4, $2),
			(18, 'call_9', 'fetch_url', '{"url": "https://example.com/b"}', $1, NULL, $2, $2, 'pending', $3, NULL, NULL)`,
			[]any{c1, ann, t1, t1.Add(5 * time.Minute)}},
	} {
		if _, err := db.Exec(context.Background(), s.sql, s.args...); err != nil {
			t.Fatalf("seed: %v\n%s", err, s.sql)
		}
	}
	return f
}

// answers are the known answers of the documented queries, by title, for a
// session in zone (timestamptz columns show in it; the rest does not move).
func (f *docsFixture) answers(zone *time.Location) map[string]known {
	t1, yest, old := f.today, f.yesterday, f.old
	local := func(t time.Time) string { return t.In(f.msk).Format("2006-01-02T15:04:05") }
	inZone := func(t time.Time) string { return t.In(zone).Format("2006-01-02T15:04:05-07:00") }
	day := func(t time.Time) string { return t.In(f.msk).Format("2006-01-02") }
	annCalls := 3 // this month: yesterday's failed call too, unless yesterday was last month
	if yest.In(f.msk).Month() == t1.In(f.msk).Month() {
		annCalls = 4
	}
	plain := "I need a passport renewal"
	stamped := "[Текущее время: " + t1.In(f.msk).Format("2006-01-02 15:04") + "] " + plain
	var calls []any
	if err := json.Unmarshal([]byte(toolCalls), &calls); err != nil {
		panic(err)
	}
	c1Rows := []row{
		{"local_time": local(old), "role": "user", "tool_name": nil, "content": "an old question"},
		{"local_time": local(t1), "role": "user", "tool_name": nil, "content": stamped},
		{"local_time": local(t1), "role": "assistant", "tool_name": nil, "content": ""},
		{"local_time": local(t1), "role": "tool", "tool_name": "calculator", "content": "42"},
		{"local_time": local(t1), "role": "tool", "tool_name": "calculator", "content": "43"},
		{"local_time": local(t1), "role": "tool", "tool_name": "fetch_url", "content": "refused"},
		{"local_time": local(t1), "role": "assistant", "tool_name": nil, "content": "Your visa is fine"},
	}
	var last20 []row
	for i := len(c1Rows) - 1; i >= 0; i-- {
		r := c1Rows[i]
		last20 = append(last20, row{"at": r["local_time"], "role": r["role"], "left": r["content"]})
	}
	failed := row{"update_id": 7, "chat_id": ann, "attempts": 2, "error": "given up: boom", "received_at": inZone(yest)}
	return map[string]known{
		"1. Who talked most this week.": {rows: []row{
			{"telegram_user_id": ann, "username": "ann", "messages": 3, "tokens": 350},
			{"telegram_user_id": bob, "username": "bob", "messages": 1, "tokens": 55}}},
		"2. A user's last conversation (in a private chat the chat id is the user id).": {rows: c1Rows},
		"3. Everything a user wrote today, in any chat.": {rows: []row{
			{"local_time": local(t1), "chat_id": ann, "content": stamped},
			{"local_time": local(t1), "chat_id": group, "content": "[Ann] hi all"},
			{"local_time": local(t1), "chat_id": group, "content": "[Ann] again"}}},
		"4. Token spend per model per day.": {rows: []row{
			{"day": day(t1), "model": "m1", "calls": 2, "prompt": 300, "completion": 50},
			{"day": day(t1), "model": "m2", "calls": 1, "prompt": 50, "completion": 5}}},
		"5. The biggest spenders this month.": {rows: []row{
			{"telegram_user_id": ann, "username": "ann", "tokens": 350, "model_calls": annCalls},
			{"telegram_user_id": bob, "username": "bob", "tokens": 55, "model_calls": 1}}},
		"6. Tool failures of the last 7 days, with the error.": {rows: []row{
			{"at": local(t1), "telegram_user_id": ann, "tool": "fetch_url", "error": "refused"}}},
		"7. Tools by use and failure rate, this week.": {rows: []row{
			{"tool_name": "calculator", "calls": 2, "errors": 0, "error_pct": 0, "mean_ms": 15},
			{"tool_name": "fetch_url", "calls": 1, "errors": 1, "error_pct": 100, "mean_ms": 30}}},
		"8. Model failures today, by status.": {rows: []row{{"status": "500", "calls": 1, "an_error": "boom"}}},
		"9. Model latency per model over the last day: median and 95th percentile.": {unordered: true, rows: []row{
			{"model": "m1", "calls": 2, "p50_ms": 200, "p95_ms": 290},
			{"model": "m2", "calls": 1, "p50_ms": 200, "p95_ms": 200}}},
		"10. How long people wait for an answer, per day (from storing the update to delivery).": {rows: []row{
			{"day": day(t1), "answers": 2, "p50_ms": 200, "p95_ms": 290},
			{"day": day(yest), "answers": 1, "p50_ms": 50, "p95_ms": 50}}},
		"11. Approvals still waiting for a decision (pending_approvals has them too:": {rows: []row{
			{"asked_at": local(t1), "telegram_user_id": ann, "chat_id": ann, "payload": row{"approval_id": 18}}}},
		"12. Who knocked without being allowed, and how often.": {rows: []row{
			{"telegram_user_id": cat, "chat_id": cat, "days": 2, "messages": 4, "last_seen": inZone(t1)}}},
		"13. Who hit a limit today.": {rows: []row{{"telegram_user_id": ann, "limit_hit": "tokens", "messages_stopped": 1}}},
		"14. Active users per day, and how many were new.": {rows: []row{
			{"day": day(t1), "active": 2, "new": 1},
			{"day": day(old), "active": 1, "new": 0}}},
		"15. The inbox: updates waiting, stuck or given up.": {unordered: true, rows: []row{
			{"state": "done", "updates": 5, "oldest": inZone(yest), "failed": 1},
			{"state": "pending", "updates": 1, "oldest": inZone(t1), "failed": 0}}},
		"15. The inbox: updates waiting, stuck or given up. (2)": {rows: []row{failed}},
		"16. How often people start over.":                       {rows: []row{{"day": day(t1), "resets": 1, "messages_deleted": 5}}},

		"The last 20 messages of a user's current conversation, in Moscow time.": {rows: last20},
		"Who wrote the most messages in the last 7 days (in a group, each message": {rows: []row{
			{"telegram_user_id": ann, "username": "ann", "messages": 3},
			{"telegram_user_id": bob, "username": "bob", "messages": 1}}},
		"Tool calls per tool and how many failed.": {rows: []row{
			{"tool_name": "calculator", "calls": 2, "errors": 0, "mean_ms": 15},
			{"tool_name": "fetch_url", "calls": 1, "errors": 1, "mean_ms": 30}}},
		"Tokens spent per day and user (every model call, tools' rounds included).": {rows: []row{
			{"day": day(t1), "telegram_user_id": ann, "username": "ann", "model_calls": 3, "tokens": 350},
			{"day": day(t1), "telegram_user_id": bob, "username": "bob", "model_calls": 1, "tokens": 55},
			{"day": day(yest), "telegram_user_id": ann, "username": "ann", "model_calls": 1, "tokens": 0},
			{"day": day(old), "telegram_user_id": ann, "username": "ann", "model_calls": 0, "tokens": 0}}},
		"When and why each chat's persona changed (times in Moscow).": {rows: []row{
			{"chat_id": ann, "at": local(t1), "from_mode": "default", "to_mode": "concise", "reason": "command"}}},
		"How often people take answers back or ask for them again, per day.": {rows: []row{
			{"day": day(t1) + "T00:00:00", "command": "undo", "count": 1, "rows_removed": 2}}},
		"Updates that could not be handled, and why.": {rows: []row{failed}},
		"What the bot remembers about a user, as the model sees it (newest first).": {rows: []row{
			{"id": 1, "content": "Lives in Kazan", "updated": local(t1), "source_message_id": 2},
			{"id": 2, "content": "Likes tea", "updated": local(yest), "source_message_id": nil}}},
		"Full-text search of a chat's current conversation, as search_history does it.": {rows: []row{
			{"id": 7, "at": local(t1), "role": "assistant", "left": "Your visa is fine"},
			{"id": 2, "at": local(t1), "role": "user", "left": plain}}},
		"Reminders still to come, and those sent late or not at all.": {rows: []row{
			{"id": 1, "chat_id": ann, "due": local(f.now.Add(time.Hour)), "text": "call mum"}}},
		"Reminders still to come, and those sent late or not at all. (2)": {rows: []row{
			{"id": 2, "chat_id": ann, "status": "sent", "late": true, "due_at": inZone(yest), "sent_at": inZone(yest.Add(2 * time.Minute)),
				"delay": "00:02:00", "attempts": 1, "error": nil},
			{"id": 3, "chat_id": ann, "status": "failed", "late": false, "due_at": inZone(yest.Add(-time.Hour)), "sent_at": nil,
				"delay": nil, "attempts": 3, "error": "Forbidden: bot was blocked by the user"}}},
		"Tool calls waiting for approval, oldest first.": {rows: []row{
			{"id": 18, "chat_id": ann, "telegram_user_id": ann, "subject": "fetch_url", "details": row{"url": "https://example.com/b"}, "asked": local(t1)}}},
		"Every decision, who made it and how long it took.": {rows: []row{
			{"id": 17, "subject": "fetch_url", "url": "https://example.com/a", "status": "approved", "decided_by": ann,
				"decision_reason": nil, "waited": "00:05:00"}}},
		"One approved call end to end: the request, the call, its result and the answer.": {rows: []row{
			{"status": "approved", "decided_by": ann, "tool_calls": calls, "result": "refused", "ms": "30", "error": "refused"}}},
	}
}
