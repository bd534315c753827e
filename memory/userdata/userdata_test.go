package userdata_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/userdata"
)

// fixture is a database with a few users, conversations and rows, written
// as the bot writes them.
type fixture struct {
	t    *testing.T
	pool *pgxpool.Pool
	s    *userdata.Store
}

func setup(t *testing.T) *fixture {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return &fixture{t: t, pool: pool, s: userdata.New(pool)}
}

func (f *fixture) exec(sql string, args ...any) {
	f.t.Helper()
	if _, err := f.pool.Exec(context.Background(), sql, args...); err != nil {
		f.t.Fatalf("%s: %v", sql, err)
	}
}

func (f *fixture) user(id int64, username string) {
	f.exec(`INSERT INTO users (telegram_user_id, username, first_name, language_code) VALUES ($1, $2, 'N', 'en')`, id, username)
}

// conversation opens a conversation of user in chat (thread 0: none) and returns its id.
func (f *fixture) conversation(user, chat, thread int64) string {
	f.t.Helper()
	var id string
	if err := f.pool.QueryRow(context.Background(), `INSERT INTO conversations (telegram_user_id, chat_id, message_thread_id)
		VALUES ($1, $2, nullif($3::bigint, 0)) RETURNING id::text`, user, chat, thread).Scan(&id); err != nil {
		f.t.Fatal(err)
	}
	return id
}

// row adds a message; set is more SQL assignments ("" none).
func (f *fixture) row(conv, role, content, set string) int64 {
	f.t.Helper()
	var id int64
	if err := f.pool.QueryRow(context.Background(), `INSERT INTO messages (conversation_id, role, content) VALUES ($1, $2, $3) RETURNING id`,
		conv, role, content).Scan(&id); err != nil {
		f.t.Fatal(err)
	}
	if set != "" {
		f.exec(`UPDATE messages SET `+set+` WHERE id = $1`, id)
	}
	return id
}

func TestTheTranscriptIsTheChatsCurrentConversationWhole(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	chat := memory.Chat{ID: 1}
	old := f.conversation(1, 1, 0)
	f.row(old, "user", "old", "")
	f.exec(`UPDATE conversations SET reset_at = now(), created_at = now() - interval '1 day' WHERE id = $1`, old)
	topic := f.conversation(1, 1, 9)
	f.row(topic, "user", "in the topic", "")
	cur := f.conversation(1, 1, 0)
	f.exec(`UPDATE conversations SET created_at = now() - interval '1 hour' WHERE id = $1`, topic)
	q := f.row(cur, "user", "[Текущее время: 2030-01-01 10:00] what is 6*7?", "update_id = 100, written_at = '2030-01-01 07:00Z'")
	f.row(cur, "assistant", "", `tool_calls = '[{"id":"c1","name":"calculator","arguments":"{}"}]', metadata = '{"reasoning":"think","reasoning_from":"reasoning_content"}'`)
	f.row(cur, "tool", "42", "tool_call_id = 'c1', tool_name = 'calculator'")
	a := f.row(cur, "assistant", "42", "telegram_message_id = 555")
	f.row(cur, "system", "Tools used: calculator", "")

	var got []memory.Message
	var head userdata.Conversation
	var count int
	err := f.s.WalkCurrentTranscript(ctx, chat, func(c userdata.Conversation, rows int) error {
		head, count = c, rows
		return nil
	}, func(m *memory.Message) error {
		got = append(got, *m)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if head.ID != cur || head.ChatID != 1 || head.TelegramUserID != 1 || head.Mode != "default" || count != 5 || len(got) != 5 {
		t.Fatalf("head %+v, %d rows, %d walked; want conversation %s, 5 rows", head, count, len(got), cur)
	}
	if got[0].ID != q || got[0].UpdateID != 100 || !got[0].WrittenAt.Equal(time.Date(2030, 1, 1, 7, 0, 0, 0, time.UTC)) {
		t.Errorf("first row %+v", got[0])
	}
	if got[1].ReasoningBack != "think" || len(got[1].ToolCalls) != 1 || got[2].ToolName != "calculator" || got[3].TelegramMessageID != 555 {
		t.Errorf("rows %+v", got[1:4])
	}

	dialogue, err := f.s.Dialogue(ctx, chat, 10)
	if err != nil || len(dialogue) != 2 || dialogue[0].ID != q || dialogue[1].ID != a {
		t.Errorf("Dialogue = %+v, %v; want the question and the answer only", dialogue, err)
	}
	if last, _ := f.s.Dialogue(ctx, chat, 1); len(last) != 1 || last[0].ID != a {
		t.Errorf("Dialogue of 1 = %+v; want the newest", last)
	}
	if inTopic, _ := f.s.Dialogue(ctx, memory.Chat{ID: 1, Thread: 9}, 10); len(inTopic) != 1 || inTopic[0].Content != "in the topic" {
		t.Errorf("the topic's dialogue = %+v", inTopic)
	}

	stop := errors.New("the caller stops")
	walked := 0
	err = f.s.WalkCurrentTranscript(ctx, chat, func(userdata.Conversation, int) error { return nil }, func(*memory.Message) error {
		walked++
		return stop
	})
	if err != stop || walked != 1 {
		t.Errorf("a walk stopped by its caller: %v after %d rows; want the caller's error as is, after 1", err, walked)
	}
	err = f.s.WalkCurrentTranscript(ctx, memory.Chat{ID: 404}, func(userdata.Conversation, int) error { return nil }, func(*memory.Message) error { return nil })
	if !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("a chat without a conversation: %v; want ErrNotFound", err)
	}
}

func TestUsageCountsWhatTheLimitsLookAt(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	f.user(1, "Ann")
	f.user(2, "bob")
	day := time.Now().Add(-time.Hour)
	window := time.Now().Add(-time.Minute)
	f.exec(`INSERT INTO llm_calls (telegram_user_id, model, prompt_tokens, completion_tokens, created_at) VALUES
		(1, 'm', 100, 20, now()), (1, 'm', 1000, 0, now() - interval '2 hours'), (2, 'm', 5, 5, now())`)
	f.exec(`INSERT INTO events (type, telegram_user_id, update_id, payload, occurred_at) VALUES
		('message_received', 1, 10, '{}', now()), ('message_received', 1, 11, '{}', now()),
		('message_received', 1, 12, '{"kind":"command"}', now()), ('message_received', 1, 9, '{}', now() - interval '5 minutes'),
		('rate_limited', 1, 13, '{"limit":"rate","notified":true}', now()), ('rate_limited', 1, 14, '{"limit":"rate","notified":false}', now()),
		('message_received', 2, 20, '{}', now()), ('access_denied', 3, 30, '{}', now())`)

	u, err := f.s.RecentUsage(ctx, 1, 11, day, window)
	if err != nil || u != (userdata.Usage{TokensToday: 120, Received: 2, RateNotices: 1}) {
		t.Errorf("RecentUsage = %+v, %v; want 120 tokens today, 2 messages in the window (not update 11), 1 notice", u, err)
	}
	st, err := f.s.UserStats(ctx, 1, day, day.Add(-24*time.Hour))
	if err != nil || !st.Known || st.User.Username != "Ann" || st.MessagesToday != 3 || st.TokensToday != 120 || st.TokensTotal != 1120 || st.ModelCalls != 2 {
		t.Errorf("UserStats = %+v, %v", st, err)
	}
	if st, err := f.s.UserStats(ctx, 99, day, day); err != nil || st.Known || st.ModelCalls != 0 {
		t.Errorf("an unknown user's stats = %+v, %v; want not known", st, err)
	}
	all, err := f.s.Stats(ctx, day)
	if err != nil || all.Users != 2 || all.ActiveToday != 2 || all.MessagesToday != 5 || all.TokensToday != 130 || all.ModelCallsToday != 2 || all.RefusedToday != 3 {
		t.Errorf("Stats = %+v, %v", all, err)
	}
	f.exec(`UPDATE users SET last_seen_at = now() - interval '1 day' WHERE telegram_user_id = 1`)
	f.exec(`UPDATE users SET username = 'ann' WHERE telegram_user_id = 2`) // the name changed hands
	if id, err := f.s.UserByUsername(ctx, "ANN"); err != nil || id != 2 {
		t.Errorf("UserByUsername = %d, %v; want 2, seen last", id, err)
	}
	if _, err := f.s.UserByUsername(ctx, "nobody"); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("an unknown name: %v; want ErrNotFound", err)
	}
}

func TestHistoryIsTheNewestRowsOldestFirst(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	private := f.conversation(1, 1, 0)
	group := f.conversation(1, -100, 0)
	var ids []int64
	for i, c := range []string{private, group, private, group} {
		ids = append(ids, f.row(c, "user", strings.Repeat("x", i+1), ""))
	}
	got, err := f.s.History(ctx, 1, 3)
	if err != nil || len(got) != 3 || got[0].MessageID != ids[1] || got[2].MessageID != ids[3] || got[2].ChatID != -100 || got[2].Role != memory.RoleUser {
		t.Errorf("History = %+v, %v; want rows %v", got, err, ids[1:])
	}
	chat, err := f.s.ChatHistory(ctx, -100, 10)
	if err != nil || len(chat) != 2 || chat[0].MessageID != ids[1] || chat[1].MessageID != ids[3] {
		t.Errorf("ChatHistory = %+v, %v; want the group's two rows", chat, err)
	}
}

func TestExportHoldsWhatForgetDeletes(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	f.user(1, "ann")
	f.user(2, "bob")
	mine := f.conversation(1, 1, 0)
	f.row(mine, "user", "my secret", "")
	group := f.conversation(1, -100, 0) // a group conversation Ann started: others wrote in it
	f.row(group, "user", "hello group", "")
	theirs := f.conversation(2, 2, 0)
	f.row(theirs, "user", "bob's", "")

	export, err := f.s.Export(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	var users []map[string]any
	if err := json.Unmarshal(export["users"], &users); err != nil || len(users) != 1 || users[0]["username"] != "ann" {
		t.Fatalf("the export's users: %s, %v", export["users"], err)
	}
	if !strings.Contains(string(export["messages"]), "my secret") || strings.Contains(string(export["messages"]), "bob's") {
		t.Errorf("the export's messages: %s", export["messages"])
	}
	deleted, err := f.s.Forget(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if deleted["users"] != 1 || deleted["messages"] < 1 {
		t.Errorf("Forget deleted %v", deleted)
	}
	after, err := f.s.Export(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for table, rows := range after {
		if s := string(rows); s != "[]" && s != "null" {
			t.Errorf("after Forget the export still has %s: %s", table, s)
		}
	}
	var owner int64
	if err := f.pool.QueryRow(ctx, `SELECT telegram_user_id FROM conversations WHERE id = $1`, group).Scan(&owner); err != nil {
		t.Fatalf("the group conversation Ann started is gone: %v", err)
	}
	var bobs int
	f.pool.QueryRow(ctx, `SELECT count(*) FROM messages WHERE conversation_id = $1`, theirs).Scan(&bobs)
	if owner != 0 || bobs != 1 {
		t.Errorf("the group conversation is owned by %d (want 0, kept); Bob has %d rows (want 1)", owner, bobs)
	}
}

func TestAdminViewsShowTheZone(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	var roleExists bool
	f.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'membot_readonly')`).Scan(&roleExists)
	changed, warnings, err := f.s.PrepareAdminViews(ctx, "Asia/Tokyo")
	if err != nil || !changed {
		t.Fatalf("PrepareAdminViews = %v, %v, %v; want the zone changed", changed, warnings, err)
	}
	if warned := len(warnings) == 1 && strings.Contains(warnings[0], "membot_readonly"); warned == roleExists {
		t.Errorf("warnings %q with the role there: %v", warnings, roleExists)
	}
	// Sessions opened from now on show Tokyo's times, and find nothing to change.
	conn, err := pgxpool.New(ctx, f.pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if changed, _, err := userdata.New(conn).PrepareAdminViews(ctx, "Asia/Tokyo"); changed || err != nil {
		t.Errorf("the same zone again: changed %v, %v", changed, err)
	}
	var zone string
	if err := conn.QueryRow(ctx, `SELECT membot_timezone()`).Scan(&zone); err != nil || zone != "Asia/Tokyo" {
		t.Errorf("a new session's zone = %q, %v", zone, err)
	}
}
