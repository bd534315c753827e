package queue_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/redact"
	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/memory/pg"
	"github.com/membot/membot/memory/queue"
)

const bot = 4242

// setup is the inbox over a fresh migrated database, serving bot, and its
// pool to look at the rows.
func setup(t *testing.T) (*queue.Store, *pgxpool.Pool) {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	secrets := &pg.Secrets{}
	secrets.Hide(redact.New("123456:SECRET-TOKEN-abcdefghij"))
	s := queue.New(pool, secrets)
	if _, err := s.AdoptUpdates(context.Background(), bot); err != nil {
		t.Fatal(err)
	}
	return s, pool
}

// text is a message update of chat from user.
func text(id, chat, user int64, s string) queue.Update {
	payload := fmt.Sprintf(`{"update_id":%d,"message":{"chat":{"id":%d},"from":{"id":%d},"text":%q}}`, id, chat, user, s)
	return queue.Update{UpdateID: id, ChatID: chat, Payload: []byte(payload)}
}

// alive holds an owner lock until the test ends, or until stop is called.
func alive(t *testing.T, s *queue.Store) (id int32, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l := s.HoldOwnerLock(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)))
	stop = func() { cancel(); l.Wait() }
	t.Cleanup(stop)
	return l.ID, stop
}

func TestEachChatsUpdatesAreClaimedInOrderByOneLiveOwner(t *testing.T) {
	t.Parallel()
	s, _ := setup(t)
	ctx := context.Background()
	if err := s.SaveUpdates(ctx, []queue.Update{text(11, 1, 1, "second"), text(10, 1, 1, "first"), text(20, 2, 2, "other chat")}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveUpdates(ctx, []queue.Update{text(10, 1, 1, "first")}); err != nil { // delivered twice
		t.Fatal(err)
	}
	if chats, err := s.UnfinishedChats(ctx); err != nil || !slices.Equal(sorted(chats), []int64{1, 2}) {
		t.Fatalf("UnfinishedChats = %v, %v", chats, err)
	}
	a, stopA := alive(t, s)
	b, _ := alive(t, s)
	u, err := s.ClaimNext(ctx, 1, a)
	if err != nil || u == nil || u.UpdateID != 10 || u.Attempts != 1 || u.Crashes != 0 || u.Run != nil {
		t.Fatalf("the first claim = %+v, %v; want update 10, first attempt", u, err)
	}
	var payload map[string]any
	if err := json.Unmarshal(u.Payload, &payload); err != nil || payload["message"].(map[string]any)["text"] != "first" {
		t.Errorf("payload %s", u.Payload)
	}
	if u, err := s.ClaimNext(ctx, 1, b); u != nil || err != nil {
		t.Fatalf("another owner claimed a chat held by a live one: %+v, %v", u, err)
	}
	if u, _ := s.ClaimNext(ctx, 2, b); u == nil || u.UpdateID != 20 {
		t.Fatalf("another chat is not claimed at once: %+v", u)
	}
	stopA() // the owner dies with update 10 in hand
	u, err = s.ClaimNext(ctx, 1, b)
	if err != nil || u == nil || u.UpdateID != 10 || u.Attempts != 2 || u.Crashes != 1 {
		t.Fatalf("after its owner died: %+v, %v; want update 10 again, one crash", u, err)
	}
	next, err := s.CompleteAndClaimNext(ctx, 10, nil, "", 1, b)
	if err != nil || next == nil || next.UpdateID != 11 {
		t.Fatalf("CompleteAndClaimNext = %+v, %v; want update 11", next, err)
	}
	if next, err := s.CompleteAndClaimNext(ctx, 11, nil, "", 1, b); next != nil || err != nil {
		t.Fatalf("a chat with nothing left: %+v, %v", next, err)
	}
	if chats, _ := s.UnfinishedChats(ctx); !slices.Equal(chats, []int64{2}) {
		t.Errorf("UnfinishedChats = %v, want [2]", chats)
	}
}

func sorted(s []int64) []int64 { slices.Sort(s); return s }

func TestAnAnswerShownBeforeACrashIsFoundAndItsDeliveryRecorded(t *testing.T) {
	t.Parallel()
	s, pool := setup(t)
	ctx := context.Background()
	owner, _ := alive(t, s)
	other, _ := alive(t, s)
	if _, err := s.SaveAndClaim(ctx, []queue.Update{text(30, 3, 3, "hi")}, owner, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClaimNext(ctx, 3, owner); err != nil {
		t.Fatal(err)
	}
	if err := s.NoteShown(ctx, 30, []int64{500, 501}); err != nil {
		t.Fatal(err)
	}
	if err := s.HandBack(ctx, owner); err != nil { // a clean stop with the turn abandoned
		t.Fatal(err)
	}
	u, err := s.ClaimNext(ctx, 3, other) // handed back: another live process may take it
	if err != nil || u == nil || !slices.Equal(u.Shown, []int64{500, 501}) || u.Crashes != 0 || u.Attempts != 2 {
		t.Fatalf("claimed by another after a hand-back: %+v, %v; want shown 500, 501, no crash, second attempt", u, err)
	}
	var conv string
	var answer int64
	pool.QueryRow(ctx, `INSERT INTO conversations (telegram_user_id, chat_id) VALUES (3, 3) RETURNING id::text`).Scan(&conv)
	pool.QueryRow(ctx, `INSERT INTO messages (conversation_id, role, content) VALUES ($1, 'assistant', 'hello') RETURNING id`, conv).Scan(&answer)
	err = s.Complete(ctx, 30, &queue.Delivery{MessageID: answer, TelegramMessageIDs: []int64{500, 501}, ShownAs: "html"}, "")
	if err != nil {
		t.Fatal(err)
	}
	var tgID int64
	var meta string
	pool.QueryRow(ctx, `SELECT telegram_message_id, metadata::text FROM messages WHERE id = $1`, answer).Scan(&tgID, &meta)
	if tgID != 500 || meta != `{"shown_as": "html", "telegram_message_ids": [500, 501]}` {
		t.Errorf("the answer row: message %d, metadata %s", tgID, meta)
	}
	var sent int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE type = 'reply_sent' AND update_id = 30 AND (payload->>'message_id')::bigint = $1`, answer).Scan(&sent); err != nil {
		t.Fatal(err)
	}
	if sent != 1 {
		t.Errorf("%d reply_sent events, want 1", sent)
	}
}

func TestAGivenUpUpdateKeepsWhyWithoutSecrets(t *testing.T) {
	t.Parallel()
	s, pool := setup(t)
	ctx := context.Background()
	if err := s.SaveUpdates(ctx, []queue.Update{text(40, 4, 4, "x")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Complete(ctx, 40, nil, "401 Unauthorized for bot123456:SECRET-TOKEN-abcdefghij"); err != nil {
		t.Fatal(err)
	}
	var state, why string
	pool.QueryRow(ctx, `SELECT state, error FROM updates WHERE update_id = 40`).Scan(&state, &why)
	if state != "done" || why != "401 Unauthorized for bot"+redact.Mark {
		t.Errorf("update 40: %s, %q; want done, the error without the token", state, why)
	}
}

func TestSaveAndClaimStoresWhatPostgreSQLWouldRefuseAndAnIDTakenByAnotherUpdate(t *testing.T) {
	t.Parallel()
	s, pool := setup(t)
	ctx := context.Background()
	owner, _ := alive(t, s)
	hostile := queue.Update{UpdateID: 50, ChatID: 5, Payload: []byte("{\"update_id\":50,\"message\":{\"chat\":{\"id\":5},\"text\":\"a\\u0000b\xff\"}}")}
	claimed, err := s.SaveAndClaim(ctx, []queue.Update{hostile}, owner, []int64{5})
	if err != nil || len(claimed) != 1 || claimed[0].UpdateID != 50 {
		t.Fatalf("SaveAndClaim = %+v, %v; want update 50 claimed", claimed, err)
	}
	// Telegram starts its ids again (a bot whose webhook was deleted): an
	// id that answered messages already is stored under a new one.
	var conv string
	pool.QueryRow(ctx, `INSERT INTO conversations (telegram_user_id, chat_id) VALUES (6, 6) RETURNING id::text`).Scan(&conv)
	pool.Exec(ctx, `INSERT INTO messages (conversation_id, role, content, update_id) VALUES ($1, 'user', 'old', 60)`, conv)
	again := []queue.Update{text(60, 6, 6, "new message, old id")}
	if _, err := s.SaveAndClaim(ctx, again, owner, nil); err != nil {
		t.Fatal(err)
	}
	if again[0].StoredAs <= 60 {
		t.Fatalf("an id a message holds was stored as %d; want a new one", again[0].StoredAs)
	}
	dup := []queue.Update{text(60, 6, 6, "new message, old id")}
	if _, err := s.SaveAndClaim(ctx, dup, owner, nil); err != nil || dup[0].StoredAs != 0 {
		t.Errorf("the same update delivered again: stored as %d, %v; want 0 (there already)", dup[0].StoredAs, err)
	}
	var n int
	pool.QueryRow(ctx, `SELECT count(*) FROM updates WHERE chat_id = 6`).Scan(&n)
	if n != 1 {
		t.Errorf("%d rows of the update delivered twice", n)
	}
}

func TestAdoptUpdatesMakesTheOldOnesTheBots(t *testing.T) {
	t.Parallel()
	pool, err := pgxpool.New(context.Background(), pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ctx := context.Background()
	s := queue.New(pool, nil)
	if err := s.SaveUpdates(ctx, []queue.Update{text(70, 7, 7, "before"), text(71, 7, 7, "before too")}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.AdoptUpdates(ctx, bot); err != nil || n != 2 || s.BotID() != bot {
		t.Fatalf("AdoptUpdates = %d, %v (bot %d); want 2 adopted", n, err, s.BotID())
	}
	if n, _ := s.AdoptUpdates(ctx, bot); n != 0 {
		t.Errorf("adopted %d again", n)
	}
}

func TestStopRequests(t *testing.T) {
	t.Parallel()
	s, _ := setup(t)
	ctx := context.Background()
	owner, _ := alive(t, s)
	early := text(81, 8, 9, "/stop") // sent before the answer began: not for it
	if err := s.SaveUpdates(ctx, []queue.Update{text(80, 8, 1, "question"), early}); err != nil {
		t.Fatal(err)
	}
	if u, err := s.ClaimNext(ctx, 8, owner); err != nil || u.UpdateID != 80 {
		t.Fatalf("claim: %+v, %v", u, err)
	}
	stops := []queue.Update{
		text(82, 8, 2, "/stop@membot_test_bot please"),
		text(83, 8, 3, "stop"),       // not the command
		text(84, 8, 4, "/stopwatch"), // another command
		{UpdateID: 85, ChatID: 8, Payload: []byte(`{"update_id":85,"stopped_message_generation":{"chat":{"id":8},"draft_id":77}}`)},
		{UpdateID: 86, ChatID: 8, Payload: []byte(`{"update_id":86,"stopped_message_generation":{"chat":{"id":8},"draft_id":78}}`)},
		{UpdateID: 87, ChatID: 8, Payload: []byte(`{"update_id":87,"callback_query":{"from":{"id":5},"data":"stop"}}`)},
		text(88, 9, 1, "/stop"), // another chat
	}
	if err := s.SaveUpdates(ctx, stops); err != nil {
		t.Fatal(err)
	}
	got, err := s.StopRequests(ctx, 8, 80, 77, 80)
	if err != nil {
		t.Fatal(err)
	}
	want := []queue.StopRequest{{UpdateID: 82, UserID: 2}, {UpdateID: 85, UserID: 8}, {UpdateID: 87, UserID: 5}}
	if !slices.Equal(got, want) {
		t.Errorf("StopRequests = %v, want %v", got, want)
	}
	if got, _ := s.StopRequests(ctx, 8, 80, 77, 85); !slices.Equal(got, want[2:]) {
		t.Errorf("after 85: %v, want %v", got, want[2:])
	}
}

func TestABacklogIsMeasured(t *testing.T) {
	t.Parallel()
	s, pool := setup(t)
	ctx := context.Background()
	if b, err := s.InboxBacklog(ctx); err != nil || b != (queue.Backlog{}) {
		t.Fatalf("an empty inbox: %+v, %v", b, err)
	}
	s.SaveUpdates(ctx, []queue.Update{text(90, 9, 9, "a"), text(91, 9, 9, "b")})
	pool.Exec(ctx, `UPDATE updates SET received_at = now() - interval '1 hour' WHERE update_id = 90`)
	pool.Exec(ctx, `INSERT INTO conversations (telegram_user_id, chat_id, reset_at) VALUES (9, 9, now() - interval '2 minutes')`)
	b, err := s.InboxBacklog(ctx)
	if err != nil || b.Unfinished != 2 || b.OldestAge < 59*time.Minute || b.OldestAge > 2*time.Hour || b.ToPurge != 1 || b.PurgeAge < time.Minute {
		t.Errorf("InboxBacklog = %+v, %v; want 2 updates an hour old, 1 conversation to purge", b, err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Error(err)
	}
}

func TestATaskRunIsClaimedAsARun(t *testing.T) {
	t.Parallel()
	s, pool := setup(t)
	ctx := context.Background()
	run := queue.TaskRun{TaskID: 12, From: queue.RunUser{ID: 3, FirstName: "Ann"}, ChatID: 3, Prompt: "weather", DueAt: time.Date(2030, 1, 1, 8, 0, 0, 0, time.UTC), Late: true}
	payload, err := queue.EncodeRun(run)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveUpdates(ctx, []queue.Update{{UpdateID: 95, ChatID: 3, Payload: payload}}); err != nil {
		t.Fatal(err)
	}
	pool.Exec(ctx, `UPDATE updates SET task_id = 12 WHERE update_id = 95`) // as the scheduler enqueues it
	owner, _ := alive(t, s)
	u, err := s.ClaimNext(ctx, 3, owner)
	if err != nil || u == nil || u.Run == nil {
		t.Fatalf("claim = %+v, %v; want a run", u, err)
	}
	if got := *u.Run; got.TaskID != 12 || got.From != run.From || got.Prompt != "weather" || !got.DueAt.Equal(run.DueAt) || !got.Late {
		t.Errorf("run = %+v, want %+v", got, run)
	}
}

func TestAClaimOnAClosedPoolIsUnavailable(t *testing.T) {
	t.Parallel()
	s, pool := setup(t)
	pool.Close()
	if _, err := s.ClaimNext(context.Background(), 1, 1); err == nil {
		t.Errorf("ClaimNext on a closed pool: %v", err)
	}
}
