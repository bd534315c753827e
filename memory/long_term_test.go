package memory_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
)

func TestFactsAreNewestFirstWithinTheBudgetAndOutliveReset(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	bob := memory.User{TelegramUserID: 7, FirstName: "Bob"}
	if err := store.Access().UpsertUser(ctx, bob); err != nil {
		t.Fatal(err)
	}
	if err := store.Access().UpsertUser(ctx, alice); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, fact := range []string{"Lives in Kazan", "Has a cat named Murka", "Prefers tea to coffee"} {
		f, err := store.LongTerm().Remember(ctx, bob.TelegramUserID, 0, fact, 0)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, f.ID)
	}
	// The same fact again (in another case) refreshes the old row.
	again, err := store.LongTerm().Remember(ctx, bob.TelegramUserID, 0, "lives in kazan", 0)
	if err != nil || again.ID != ids[0] {
		t.Fatalf("remembering a known fact = %+v, %v; want row %d", again, err, ids[0])
	}
	facts, _ := store.LongTerm().Facts(ctx, bob.TelegramUserID)
	if got := contents(facts); got != "Lives in Kazan|Prefers tea to coffee|Has a cat named Murka" {
		t.Fatalf("facts = %s", got)
	}
	// Replacing by id, and nobody can touch another user's fact.
	if _, err := store.LongTerm().Remember(ctx, bob.TelegramUserID, ids[1], "Has two cats", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := store.LongTerm().Remember(ctx, alice.TelegramUserID, ids[1], "hijacked", 0); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("replacing another user's fact: %v", err)
	}
	if _, err := store.LongTerm().ForgetFact(ctx, alice.TelegramUserID, ids[1]); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("forgetting another user's fact: %v", err)
	}

	// The turn loads the newest facts that fit in the budget: "Has two cats"
	// (12) and "Lives in Kazan" (14) fit in 30, the third would not.
	if _, err := store.Reset(ctx, memory.Chat{ID: 7}, 7); err != nil {
		t.Fatal(err)
	}
	turn, err := store.StartTurn(ctx, memory.TurnStart{User: bob, Chat: memory.Chat{ID: 7}, Content: "hi", HistoryLimit: 10, FactChars: 30})
	if err != nil {
		t.Fatal(err)
	}
	if got := contents(turn.Facts); got != "Has two cats|Lives in Kazan" {
		t.Fatalf("facts in the turn = %s", got)
	}

	if f, err := store.LongTerm().ForgetFactNumber(ctx, bob.TelegramUserID, 3); err != nil || f.Content != "Prefers tea to coffee" {
		t.Fatalf("forget number 3 = %+v, %v", f, err)
	}
	if _, err := store.LongTerm().ForgetFactNumber(ctx, bob.TelegramUserID, 3); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("forgetting a number past the end: %v", err)
	}
	if n, err := store.LongTerm().ForgetAllFacts(ctx, bob.TelegramUserID); err != nil || n != 2 {
		t.Fatalf("forget all = %d, %v", n, err)
	}
}

func contents(facts []memory.Fact) string {
	var s []string
	for _, f := range facts {
		s = append(s, f.Content)
	}
	return strings.Join(s, "|")
}

func TestSearchFindsOldMessagesByWordsInAnyForm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	var msgs []memory.Message
	for i := range 200 {
		text := fmt.Sprintf("[Текущее время: 2026-11-21 15:04] filler message number %d", i)
		if i == 3 {
			text = "[Текущее время: 2026-11-21 15:04] My passport number is in the blue folder"
		}
		msgs = append(msgs, memory.Message{Role: memory.RoleUser, Content: text})
	}
	msgs = append(msgs, memory.Message{Role: memory.RoleTool, Content: "blue folder from a tool", ToolCallID: "c", ToolName: "t"})
	ids, err := store.AppendMessages(ctx, conv, msgs...)
	if err != nil {
		t.Fatal(err)
	}

	found, err := store.Index().SearchMessages(ctx, memory.Search{ConversationID: conv, Text: "Where is the PASSPORT?", BeforeID: 0, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	found = hits(found) // the rows beside it are shown too
	if len(found) != 1 || found[0].MessageID != ids[3] || !strings.Contains(found[0].Text, "«passport»") ||
		strings.Contains(found[0].Text, "Текущее") {
		t.Fatalf("search = %+v", found)
	}
	// Other forms of the words match, and rows matching more words rank first.
	found, _ = store.Index().SearchMessages(ctx, memory.Search{ConversationID: conv, Text: "folders passports", BeforeID: 0, Limit: 5})
	found = hits(found)
	if len(found) != 1 || found[0].MessageID != ids[3] {
		t.Fatalf("prefix search = %+v", found)
	}
	found, _ = store.Index().SearchMessages(ctx, memory.Search{ConversationID: conv, Text: "number passport", BeforeID: 0, Limit: 3})
	found = hits(found)
	if len(found) != 3 || found[0].MessageID != ids[3] {
		t.Fatalf("ranked search = %+v", found)
	}
	// The time stamp is not searchable, rows from beforeID on are left out,
	// and so are tool rows.
	for _, q := range []string{"Текущее время", "tool"} {
		if found, _ := store.Index().SearchMessages(ctx, memory.Search{ConversationID: conv, Text: q, BeforeID: 0, Limit: 5}); len(found) != 0 {
			t.Errorf("search %q found %+v", q, found)
		}
	}
	if found, _ := store.Index().SearchMessages(ctx, memory.Search{ConversationID: conv, Text: "passport", BeforeID: ids[3], Limit: 5}); len(found) != 0 {
		t.Fatalf("search before the row found %+v", found)
	}
	if found, err := store.Index().SearchMessages(ctx, memory.Search{ConversationID: conv, Text: "?!", BeforeID: 0, Limit: 5}); err != nil || len(found) != 0 {
		t.Fatalf("a query without words = %+v, %v", found, err)
	}

	// The query can use the full-text index (its expression must match the
	// index's exactly).
	var plan strings.Builder
	tx, _ := store.Pool().Begin(ctx)
	defer tx.Rollback(ctx)
	tx.Exec(ctx, `SET LOCAL enable_seqscan = off`)
	rows, err := tx.Query(ctx, `EXPLAIN SELECT id FROM messages m WHERE m.role IN ('user', 'assistant')
		AND membot_search_keys(m.conversation_id, m.search_vector) @@ membot_search_query('passport', membot_search_prefix(m.conversation_id))`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var line string
		rows.Scan(&line)
		plan.WriteString(line + "\n")
	}
	if !strings.Contains(plan.String(), "messages_search") {
		t.Fatalf("the search does not use the index:\n%s", plan.String())
	}
}

func TestRemindersAreClaimedOnceAcrossProcesses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	past := time.Now().Add(-time.Hour)
	for i := range 60 {
		chat := int64(1 + i%4) // within the bounds of one chat
		if _, err := store.Reminders().AddReminder(ctx, memory.Reminder{UserID: chat, ChatID: chat, Text: fmt.Sprint(i), DueAt: past.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	future, _ := store.Reminders().AddReminder(ctx, memory.Reminder{UserID: 1, ChatID: 1, Text: "later", DueAt: time.Now().Add(time.Hour)})

	// Two live processes claim at the same time: every due row goes to
	// exactly one of them.
	owners := []*queue.OwnerLock{store.Inbox().HoldOwnerLock(ctx, log), store.Inbox().HoldOwnerLock(ctx, log)}
	var mu sync.Mutex
	claimed := map[int64]int32{}
	var wg sync.WaitGroup
	for _, o := range owners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				due, err := store.Reminders().ClaimDueReminders(ctx, o.ID, 7)
				if err != nil {
					t.Error(err)
					return
				}
				if len(due) == 0 {
					return
				}
				mu.Lock()
				for _, r := range due {
					if prev, dup := claimed[r.ID]; dup {
						t.Errorf("reminder %d claimed by %d and %d", r.ID, prev, o.ID)
					}
					claimed[r.ID] = o.ID
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(claimed) != 60 {
		t.Fatalf("%d reminders claimed, want 60", len(claimed))
	}
	if _, ok := claimed[future]; ok {
		t.Fatal("a reminder not yet due was claimed")
	}

	// Rows of a live owner stay with it; rows of a dead owner are taken over.
	deadCtx, kill := context.WithCancel(ctx)
	dead := store.Inbox().HoldOwnerLock(deadCtx, log)
	store.Pool().Exec(ctx, `UPDATE reminders SET status = 'pending', owner_id = NULL WHERE text IN ('0', '1')`)
	if due, _ := store.Reminders().ClaimDueReminders(ctx, dead.ID, 10); len(due) != 2 || due[0].LanguageCode != "" {
		t.Fatalf("re-pended rows claimed = %+v", due)
	}
	if due, _ := store.Reminders().ClaimDueReminders(ctx, owners[0].ID, 10); len(due) != 0 {
		t.Fatalf("rows of a live owner were taken: %+v", due)
	}
	kill()
	dead.Wait()
	due, err := store.Reminders().ClaimDueReminders(ctx, owners[0].ID, 10)
	if err != nil || len(due) != 2 || due[0].Attempts != 3 {
		t.Fatalf("rows of a dead owner: %+v, %v", due, err)
	}
	if err := store.Reminders().MarkReminderSent(ctx, due[0].ID, memory.ReminderSent{TelegramMessageID: 555, Late: true}); err != nil {
		t.Fatal(err)
	}
	if err := store.Reminders().FailReminder(ctx, due[1].ID, "blocked"); err != nil {
		t.Fatal(err)
	}
	var sent, failed int
	store.Pool().QueryRow(ctx, `SELECT count(*) FILTER (WHERE status = 'sent' AND late AND telegram_message_id = 555),
		count(*) FILTER (WHERE status = 'failed' AND error = 'blocked') FROM reminders`).Scan(&sent, &failed)
	if sent != 1 || failed != 1 {
		t.Fatalf("sent=%d failed=%d, want 1 and 1", sent, failed)
	}
	next, ok, err := store.Reminders().NextReminderDue(ctx)
	if err != nil || !ok || next.Before(time.Now()) {
		t.Fatalf("next due = %v, %v, %v; want the future one", next, ok, err)
	}
}

func TestRemindersAreListedAndCancelledByNumber(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	now := time.Now()
	for text, hours := range map[string]int{"third": 3, "first": 1, "second": 2} {
		store.Reminders().AddReminder(ctx, memory.Reminder{UserID: 1, ChatID: 1, Text: text, DueAt: now.Add(time.Duration(hours) * time.Hour)})
	}
	store.Reminders().AddReminder(ctx, memory.Reminder{UserID: 2, ChatID: 2, Text: "other chat", DueAt: now.Add(time.Hour)})
	list, _ := store.Reminders().ChatReminders(ctx, 1)
	var texts []string
	for _, r := range list {
		texts = append(texts, r.Text)
	}
	if !slices.Equal(texts, []string{"first", "second", "third"}) {
		t.Fatalf("listed %v", texts)
	}
	cancelled, err := store.Reminders().CancelReminders(ctx, 1, []int{2}, 0)
	if err != nil || len(cancelled) != 1 || cancelled[0].Text != "second" {
		t.Fatalf("cancel 2 = %+v, %v", cancelled, err)
	}
	if cancelled, _ := store.Reminders().CancelReminders(ctx, 1, []int{9}, 0); len(cancelled) != 0 {
		t.Fatalf("cancel 9 = %+v", cancelled)
	}
	cancelled, _ = store.Reminders().CancelReminders(ctx, 1, nil, 0)
	if len(cancelled) != 2 || cancelled[0].Text != "first" {
		t.Fatalf("cancel all = %+v", cancelled)
	}
	if left, _ := store.Reminders().ChatReminders(ctx, 2); len(left) != 1 {
		t.Fatalf("the other chat has %d reminders", len(left))
	}
}

func TestApprovalsArePausedDecidedOnceAndResumed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	turn, err := store.StartTurn(ctx, memory.TurnStart{User: alice, Chat: memory.Chat{ID: 42}, UpdateID: 10, Content: "fetch it", HistoryLimit: 3})
	if err != nil {
		t.Fatal(err)
	}
	calls := []memory.ToolCall{{ID: "call_a", Name: "fetch_url", Arguments: `{"url":"http://x"}`}, {ID: "call_b", Name: "calculator", Arguments: `{}`}}
	approvals, err := store.PauseForApproval(ctx, turn.ConversationID, memory.Step{Messages: []memory.Message{
		{Role: memory.RoleAssistant, ToolCalls: calls, UpdateID: 10},
		{Role: memory.RoleTool, ToolCallID: "call_b", ToolName: "calculator", Content: "4", UpdateID: 10},
	}}, []memory.Approval{{RequestID: "call_a", Subject: "fetch_url", Details: calls[0].Arguments, UserID: 42, ChatID: 42, UpdateID: 10}})
	if err != nil {
		t.Fatal(err)
	}
	ap := approvals[0]
	if ap.Status != memory.ApprovalPending || ap.AssistantMessageID == 0 || ap.UpdateID != 10 || ap.UserID != 42 ||
		ap.Details != calls[0].Arguments || ap.ConversationID != turn.ConversationID {
		t.Fatalf("stored approval = %+v", ap)
	}
	// The arguments are kept as given (jsonb would respace and reorder
	// them), and as jsonb for queries; a row asked before the text was
	// kept is read from its jsonb.
	var url string
	if err := store.Pool().QueryRow(ctx, `SELECT details->>'url' FROM pending_approvals WHERE id = $1`, ap.ID).Scan(&url); err != nil || url != "http://x" {
		t.Fatalf("details->>'url' = %q, %v", url, err)
	}
	if _, err := store.Pool().Exec(ctx, `UPDATE pending_approvals SET arguments = NULL WHERE id = $1`, ap.ID); err != nil {
		t.Fatal(err)
	}
	if old, err := store.Approvals().Approval(ctx, ap.ID); err != nil || old.Details != `{"url": "http://x"}` {
		t.Fatalf("an approval without its text = %+v, %v", old, err)
	}
	if _, err := store.Pool().Exec(ctx, `UPDATE pending_approvals SET arguments = $2 WHERE id = $1`, ap.ID, ap.Details); err != nil {
		t.Fatal(err)
	}
	// A retried turn of update 10 sees it asked for approval.
	again, _ := store.StartTurn(ctx, memory.TurnStart{User: alice, Chat: memory.Chat{ID: 42}, UpdateID: 10, Content: "fetch it", HistoryLimit: 3})
	if len(again.Approvals) != 1 || again.Approvals[0].ID != ap.ID {
		t.Fatalf("retried turn approvals = %+v", again.Approvals)
	}
	if err := store.Approvals().SetApprovalMessage(ctx, ap.ID, 900); err != nil {
		t.Fatal(err)
	}
	// The chat goes on; the assistant row falls out of a 3-row window.
	for i := range 5 {
		store.AppendMessages(ctx, turn.ConversationID, memory.Message{Role: memory.RoleUser, Content: fmt.Sprint("later ", i)})
	}

	decided, ok, err := store.Approvals().Decide(ctx, memory.Decision{ApprovalID: ap.ID, Status: memory.ApprovalApproved, DecidedBy: 42, UpdateID: 11, Reason: "approved by the user"})
	if err != nil || !ok || decided.Status != memory.ApprovalApproved || decided.DecisionAt == nil || decided.DecisionUpdateID != 11 || decided.TelegramMessageID != 900 {
		t.Fatalf("decide = %+v, %v, %v", decided, ok, err)
	}
	second, ok, err := store.Approvals().Decide(ctx, memory.Decision{ApprovalID: ap.ID, Status: memory.ApprovalRejected, DecidedBy: 42, UpdateID: 12})
	if err != nil || ok || second.Status != memory.ApprovalApproved || second.DecisionUpdateID != 11 {
		t.Fatalf("second decision = %+v, %v, %v", second, ok, err)
	}

	resumed, err := store.ResumeTurn(ctx, memory.ResumeStart{UserID: 42, ChatID: 42, ConversationID: ap.ConversationID,
		AssistantMessageID: ap.AssistantMessageID, UpdateID: 11, HistoryLimit: 3})
	if err != nil {
		t.Fatal(err)
	}
	var shape []string
	for _, m := range resumed.History {
		shape = append(shape, string(m.Role)+":"+m.ToolCallID+m.Content)
	}
	if got := strings.Join(shape, " "); got != "assistant: tool:call_b4 user:later 2 user:later 3 user:later 4" {
		t.Fatalf("resume history = %s", got)
	}
	if resumed.UserMessageID != turn.UserMessageID || len(resumed.Approvals) != 1 || resumed.Answer != nil {
		t.Fatalf("resume = %+v", resumed)
	}

	// /new cancels what is pending; the rows stay, detached from the deleted conversation.
	store.PauseForApproval(ctx, turn.ConversationID, memory.Step{Messages: []memory.Message{{Role: memory.RoleAssistant,
		ToolCalls: []memory.ToolCall{{ID: "call_c", Name: "fetch_url", Arguments: `{}`}}}}},
		[]memory.Approval{{RequestID: "call_c", Subject: "fetch_url", Details: `{}`, UserID: 42, ChatID: 42}})
	if list, _ := store.Approvals().ChatApprovals(ctx, memory.Chat{ID: 42}); len(list) != 1 || list[0].RequestID != "call_c" {
		t.Fatalf("pending = %+v", list)
	}
	cancelled, err := store.Approvals().CancelApprovals(ctx, memory.Chat{ID: 42}, "cancelled by /new")
	if err != nil || len(cancelled) != 1 || cancelled[0].Status != memory.ApprovalCancelled {
		t.Fatalf("cancel = %+v, %v", cancelled, err)
	}
	store.Reset(ctx, memory.Chat{ID: 42}, 42)
	purgeAll(t, store)
	after, _ := store.Approvals().Approval(ctx, cancelled[0].ID)
	if after.ConversationID != "" || after.AssistantMessageID != 0 || after.DecisionReason != "cancelled by /new" {
		t.Fatalf("after reset = %+v", after)
	}
}

// A reminder released after a send that may pass is claimed again, with
// why its send failed; one failed for good never is.
func TestAReleasedReminderIsTriedAgainAndAFailedOneIsNot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	id, err := store.Reminders().AddReminder(ctx, memory.Reminder{UserID: 1, ChatID: 1, Text: "tea", DueAt: time.Now().Add(-time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	claim := func() []memory.Reminder {
		t.Helper()
		due, err := store.Reminders().ClaimDueReminders(ctx, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		return due
	}
	if due := claim(); len(due) != 1 || due[0].ID != id {
		t.Fatalf("first claim = %+v", due)
	}
	if err := store.Reminders().ReleaseReminder(ctx, id, "timeout"); err != nil {
		t.Fatal(err)
	}
	var status, why string
	store.Pool().QueryRow(ctx, `SELECT status, error FROM reminders WHERE id = $1`, id).Scan(&status, &why)
	if status != "pending" || why != "timeout" {
		t.Fatalf("released: status %q, error %q", status, why)
	}
	if due := claim(); len(due) != 1 || due[0].Attempts != 2 {
		t.Fatalf("a released reminder is not claimed again: %+v", due)
	}
	if err := store.Reminders().FailReminder(ctx, id, "blocked"); err != nil {
		t.Fatal(err)
	}
	if due := claim(); len(due) != 0 {
		t.Fatalf("a failed reminder was claimed again: %+v", due)
	}
}
