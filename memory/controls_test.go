package memory_test

import (
	"context"
	"errors"
	"testing"

	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/userdata"
)

// exchange stores one user message and its answer, the answer after a tool call.
func exchange(t *testing.T, store *memory.Store, conv, text string, withTool bool) {
	t.Helper()
	rows := []memory.Message{{Role: memory.RoleUser, Content: text}}
	if withTool {
		rows = append(rows,
			memory.Message{Role: memory.RoleAssistant, ToolCalls: []memory.ToolCall{{ID: "c1", Name: "calculator", Arguments: "{}"}}},
			memory.Message{Role: memory.RoleTool, Content: "4", ToolCallID: "c1", ToolName: "calculator"})
	}
	rows = append(rows, memory.Message{Role: memory.RoleAssistant, Content: "answer to " + text})
	if withTool {
		rows = append(rows, memory.Message{Role: memory.RoleSystem, Content: "Tools used: calculator"})
	}
	if _, err := store.AppendMessages(context.Background(), conv, rows...); err != nil {
		t.Fatal(err)
	}
}

func rowsOf(t *testing.T, store *memory.Store, conv string) []string {
	t.Helper()
	rows, err := store.LastMessages(context.Background(), conv, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, string(r.Role)+":"+r.Content)
	}
	return out
}

func undo(updateID int64) memory.RollbackStart {
	return memory.RollbackStart{Chat: memory.Chat{ID: 7}, UpdateID: updateID, Command: memory.RollbackUndo}
}

func TestUndoTakesBackOneExchangeAtATimeAndOnlyOncePerUpdate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 7}, 7)
	exchange(t, store, conv, "first", false)
	exchange(t, store, conv, "second", true)

	r, err := store.Rollback(ctx, undo(900))
	if err != nil {
		t.Fatal(err)
	}
	if r.UserMessage == nil || r.UserMessage.Content != "second" || r.Removed != 5 || r.Repeated ||
		r.ByRole[memory.RoleAssistant] != 2 || r.ByRole[memory.RoleTool] != 1 || r.ByRole[memory.RoleSystem] != 1 {
		t.Fatalf("undo = %+v", r)
	}
	if got := rowsOf(t, store, conv); len(got) != 2 || got[0] != "user:first" || got[1] != "assistant:answer to first" {
		t.Fatalf("after undo: %q", got)
	}
	// The same update handled again (a crash before it was marked done)
	// removes nothing more.
	again, err := store.Rollback(ctx, undo(900))
	if err != nil || !again.Repeated || again.Removed != 5 {
		t.Fatalf("repeated undo = %+v, %v", again, err)
	}
	if got := rowsOf(t, store, conv); len(got) != 2 {
		t.Fatalf("a repeated update removed more: %q", got)
	}
	// A new /undo goes further back, then there is nothing left.
	if r, err := store.Rollback(ctx, undo(901)); err != nil || r.UserMessage.Content != "first" || r.Removed != 2 {
		t.Fatalf("second undo = %+v, %v", r, err)
	}
	if _, err := store.Rollback(ctx, undo(902)); !errors.Is(err, memory.ErrNoUserMessage) {
		t.Fatalf("undo of an empty conversation: %v", err)
	}
	var logged int
	store.Pool().QueryRow(ctx, `SELECT count(*) FROM conversation_rollbacks WHERE command = 'undo' AND conversation_id = $1`, conv).Scan(&logged)
	if logged != 2 {
		t.Fatalf("%d rollbacks logged, want 2", logged)
	}
}

func TestRetryRemovesTheOldAnswerAndFindsANewOneOnResume(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 8}, 8)
	exchange(t, store, conv, "first", false)
	exchange(t, store, conv, "question", true)
	if _, err := store.Choices().SwitchMode(ctx, memory.Chat{ID: 8}, 8, "coder", memory.SwitchByCommand); err != nil {
		t.Fatal(err)
	}

	retry := memory.RollbackStart{Chat: memory.Chat{ID: 8}, UpdateID: 950, Command: memory.RollbackRetry}
	r, err := store.Rollback(ctx, retry)
	if err != nil || r.Removed != 4 || r.UserMessage.Content != "question" {
		t.Fatalf("retry rollback = %+v, %v", r, err)
	}
	if got := rowsOf(t, store, conv); len(got) != 3 || got[2] != "user:question" {
		t.Fatalf("after the rollback: %q", got)
	}
	start := memory.RetryStart{Chat: memory.Chat{ID: 8}, UserID: 8, UpdateID: 950, HistoryLimit: 30}
	turn, err := store.StartRetry(ctx, start)
	if err != nil {
		t.Fatal(err)
	}
	if turn.ConversationID != conv || turn.Answer != nil || turn.Mode != "coder" {
		t.Fatalf("retry turn = %+v", turn)
	}
	if n := len(turn.History); n != 3 || turn.History[2].Content != "question" || turn.History[2].ID != turn.UserMessageID {
		t.Fatalf("history = %+v", turn.History)
	}

	// The new answer is stored under the /retry update; a second attempt at
	// that update removes nothing and finds it.
	ids, _ := store.AppendMessages(ctx, conv, memory.Message{Role: memory.RoleAssistant, Content: "better answer", UpdateID: 950})
	if again, err := store.Rollback(ctx, retry); err != nil || !again.Repeated {
		t.Fatalf("repeated rollback = %+v, %v", again, err)
	}
	again, err := store.StartRetry(ctx, start)
	if err != nil || again.Answer == nil || again.Answer.ID != ids[0] {
		t.Fatalf("resumed retry = %+v, %v", again, err)
	}
	if got := rowsOf(t, store, conv); len(got) != 4 {
		t.Fatalf("a resumed retry removed rows: %q", got)
	}
	if _, err := store.StartRetry(ctx, memory.RetryStart{Chat: memory.Chat{ID: 99}, UpdateID: 951, HistoryLimit: 30}); !errors.Is(err, memory.ErrNoUserMessage) {
		t.Fatalf("retry in a chat without messages: %v", err)
	}
	if _, err := store.Rollback(ctx, memory.RollbackStart{Chat: memory.Chat{ID: 99}, UpdateID: 952, Command: memory.RollbackRetry}); !errors.Is(err, memory.ErrNoUserMessage) {
		t.Fatalf("rollback in a chat without messages: %v", err)
	}
}

func TestUndoCancelsTheApprovalsOfTheCallsItRemoves(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 7}, 7)
	exchange(t, store, conv, "older", false)
	store.AppendMessages(ctx, conv, memory.Message{Role: memory.RoleUser, Content: "fetch it", UpdateID: 60})
	asking := memory.Message{Role: memory.RoleAssistant, UpdateID: 60,
		ToolCalls: []memory.ToolCall{{ID: "call_f", Name: "fetch_url", Arguments: `{"url": "https://example.org"}`}}}
	waiting, err := store.PauseForApproval(ctx, conv, memory.Step{Messages: []memory.Message{asking}},
		[]memory.Approval{{RequestID: "call_f", Subject: "fetch_url", Details: `{"url": "https://example.org"}`, UserID: 7, ChatID: 7, UpdateID: 60}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := store.Rollback(ctx, undo(61))
	if err != nil || r.Removed != 2 || len(r.Cancelled) != 1 || r.Cancelled[0].ID != waiting[0].ID {
		t.Fatalf("undo = %+v, %v", r, err)
	}
	if a, _ := store.Approvals().Approval(ctx, waiting[0].ID); a.Status != memory.ApprovalCancelled || a.DecisionReason != "cancelled by /undo" {
		t.Fatalf("approval after undo = %+v", a)
	}
}

func TestModeSwitchesAreRecordedAndNewResetsTheMode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	if mode, err := store.Choices().ConversationMode(ctx, memory.Chat{ID: 3}, 3); err != nil || mode != memory.DefaultMode {
		t.Fatalf("first mode = %q, %v", mode, err)
	}
	from, err := store.Choices().SwitchMode(ctx, memory.Chat{ID: 3}, 3, "concise", memory.SwitchByButton)
	if err != nil || from != memory.DefaultMode {
		t.Fatalf("switch = %q, %v", from, err)
	}
	if from, _ := store.Choices().SwitchMode(ctx, memory.Chat{ID: 3}, 3, "concise", memory.SwitchByCommand); from != "concise" {
		t.Fatalf("switch to the same mode reported %q", from)
	}
	if mode, _ := store.Choices().ConversationMode(ctx, memory.Chat{ID: 3}, 3); mode != "concise" {
		t.Fatalf("mode = %q", mode)
	}
	turn, err := store.StartTurn(ctx, memory.TurnStart{User: memory.User{TelegramUserID: 3}, Chat: memory.Chat{ID: 3}, UpdateID: 1, Content: "hi", HistoryLimit: 5})
	if err != nil || turn.Mode != "concise" {
		t.Fatalf("turn mode = %q, %v", turn.Mode, err)
	}
	fresh, err := store.Reset(ctx, memory.Chat{ID: 3}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if mode, _ := store.Choices().ConversationMode(ctx, memory.Chat{ID: 3}, 3); mode != memory.DefaultMode {
		t.Fatalf("mode after /new = %q", mode)
	}
	var switches []string
	rows, _ := store.Pool().Query(ctx, `SELECT from_mode || '>' || to_mode || ':' || reason FROM mode_switches
		WHERE conversation_id = $1 ORDER BY id`, fresh)
	for rows.Next() {
		var s string
		rows.Scan(&s)
		switches = append(switches, s)
	}
	if len(switches) != 1 || switches[0] != "concise>default:new" {
		t.Fatalf("switches of the fresh conversation = %q", switches)
	}
	// A reset from the default mode records no switch.
	again, _ := store.Reset(ctx, memory.Chat{ID: 3}, 3)
	var n int
	store.Pool().QueryRow(ctx, `SELECT count(*) FROM mode_switches WHERE conversation_id = $1`, again).Scan(&n)
	if n != 0 {
		t.Fatalf("reset from default recorded %d switches", n)
	}
}

func TestTranscriptAndDialogue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	walk := func() (userdata.Conversation, int, []string, error) {
		var c userdata.Conversation
		var n int
		var contents []string
		err := userdata.New(store.Pool()).WalkCurrentTranscript(ctx, memory.Chat{ID: 4},
			func(conv userdata.Conversation, rows int) error { c, n = conv, rows; return nil },
			func(m *memory.Message) error { contents = append(contents, m.Content); return nil })
		return c, n, contents, err
	}
	if _, _, _, err := walk(); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("transcript of an unknown chat: %v", err)
	}
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 4}, 4)
	exchange(t, store, conv, "one", true)
	exchange(t, store, conv, "two", false)
	c, n, contents, err := walk()
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != conv || c.ChatID != 4 || c.Mode != memory.DefaultMode || n != 7 || len(contents) != 7 || contents[len(contents)-1] != "answer to two" {
		t.Fatalf("transcript = %+v, %d rows: %q", c, n, contents)
	}
	// An error of the caller stops the walk and comes back as is.
	stop := errors.New("enough")
	seen := 0
	if err := userdata.New(store.Pool()).WalkCurrentTranscript(ctx, memory.Chat{ID: 4}, func(userdata.Conversation, int) error { return nil },
		func(*memory.Message) error { seen++; return stop }); err != stop || seen != 1 {
		t.Fatalf("a stopped walk: %v after %d rows", err, seen)
	}
	d, err := userdata.New(store.Pool()).Dialogue(ctx, memory.Chat{ID: 4}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(d) != 3 || d[0].Content != "answer to one" || d[1].Content != "two" || d[2].Content != "answer to two" {
		t.Fatalf("dialogue = %+v", d)
	}
}
