package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/userdata"
)

func TestRefuseAnswersTheFirstUpdateOfADayOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	refuse := func(update int64, day string) bool {
		t.Helper()
		answer, err := store.Access().Refuse(ctx, memory.Refusal{UserID: 9, ChatID: 9, UpdateID: update, Day: day})
		if err != nil {
			t.Fatal(err)
		}
		return answer
	}
	if !refuse(1, "2026-03-01") {
		t.Fatal("the day's first refusal is not answered")
	}
	if !refuse(1, "2026-03-01") {
		t.Fatal("a retry of the answered update (its send failed) is not answered again")
	}
	if refuse(2, "2026-03-01") || refuse(3, "2026-03-01") {
		t.Fatal("a second refusal on the same day is answered")
	}
	if !refuse(4, "2026-03-02") {
		t.Fatal("the next day's first refusal is not answered")
	}
	var attempts, events int
	store.Pool().QueryRow(ctx, `SELECT attempts FROM access_refusals WHERE day = '2026-03-01'`).Scan(&attempts)
	store.Pool().QueryRow(ctx, `SELECT count(*) FROM events WHERE type = 'access_denied'`).Scan(&events)
	if attempts != 3 || events != 4 {
		t.Fatalf("attempts = %d, access_denied events = %d; want 3 and 4 (a retried update counts once)", attempts, events)
	}
}

func TestRecentUsageCountsTheWindowAndLeavesOutTheUpdateBeingDecided(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 9}, 9)
	received := func(update int64) memory.Event {
		return memory.Event{Type: memory.EventMessageReceived, UserID: 9, ChatID: 9, UpdateID: update}
	}
	_, err := store.SaveStep(ctx, conv, memory.Step{
		LLMCalls: []memory.LLMCall{
			{UserID: 9, Model: "m", PromptTokens: 100, CompletionTokens: 20},
			{UserID: 9, Model: "m", PromptTokens: 7, CompletionTokens: 3},
			{UserID: 10, Model: "m", PromptTokens: 1000}, // someone else
		},
		Events: []memory.Event{received(1), received(2), received(2)}, // update 2 handled twice
	})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	u, err := userdata.New(store.Pool()).RecentUsage(ctx, 9, 3, now.Add(-time.Hour), now.Add(-time.Minute))
	if err != nil || u.TokensToday != 130 || u.Received != 2 || u.RateNotices != 0 {
		t.Fatalf("usage = %+v, %v; want 130 tokens, 2 received", u, err)
	}
	if u, _ := userdata.New(store.Pool()).RecentUsage(ctx, 9, 2, now.Add(-time.Hour), now.Add(-time.Minute)); u.Received != 1 {
		t.Fatalf("deciding update 2 counted %d received, want 1 (itself left out)", u.Received)
	}
	if u, _ := userdata.New(store.Pool()).RecentUsage(ctx, 9, 3, now.Add(time.Hour), now.Add(time.Minute)); u.TokensToday != 0 || u.Received != 0 {
		t.Fatalf("a window after everything still counts %+v", u)
	}
}

// TestAccessAndUsageReadsBothInOneTrip: the gate's one read in owner mode
// is what AccessOf and RecentUsage read apart.
func TestAccessAndUsageReadsBothInOneTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 9}, 9)
	if _, err := store.SaveStep(ctx, conv, memory.Step{
		LLMCalls: []memory.LLMCall{{UserID: 9, Model: "m", PromptTokens: 40, CompletionTokens: 2}},
		Events:   []memory.Event{{Type: memory.EventMessageReceived, UserID: 9, ChatID: 9, UpdateID: 1}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Access().SetAccess(ctx, memory.KindUser, 9, memory.AccessAllowed, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Access().SetAccess(ctx, memory.KindGroup, -5, memory.AccessBlocked, 1); err != nil {
		t.Fatal(err)
	}
	users := userdata.New(store.Pool())
	now := time.Now()
	for _, chat := range []int64{9, -5, -6} {
		st, u, err := users.AccessAndUsage(ctx, 9, chat, 2, now.Add(-time.Hour), now.Add(-time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		wantSt, _ := store.Access().AccessOf(ctx, 9, chat)
		wantU, _ := users.RecentUsage(ctx, 9, 2, now.Add(-time.Hour), now.Add(-time.Minute))
		if st != wantSt || u != wantU || st.User != memory.AccessAllowed || u.TokensToday != 42 || u.Received != 1 {
			t.Fatalf("chat %d: %+v %+v, want %+v %+v (allowed, 42 tokens, 1 received)", chat, st, u, wantSt, wantU)
		}
	}
}

func TestSaveStepIsAllOrNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 9}, 9)
	_, err := store.SaveStep(ctx, conv, memory.Step{
		Messages: []memory.Message{{Role: memory.RoleAssistant, Content: "kept?"}},
		LLMCalls: []memory.LLMCall{{UserID: 9, Model: "m", PromptTokens: 5}},
		Events:   []memory.Event{{Type: memory.EventToolCalled, ConversationID: "not-a-uuid"}},
	})
	if err == nil {
		t.Fatal("a bad event was stored")
	}
	var rows int
	store.Pool().QueryRow(ctx, `SELECT (SELECT count(*) FROM messages) + (SELECT count(*) FROM llm_calls)`).Scan(&rows)
	if rows != 0 {
		t.Fatalf("%d rows of a failed step were stored", rows)
	}
}
