package gate

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/membot/membot/bot/access"
	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/userdata"
)

// world is a fake of everything the gate reaches: its stores and Telegram,
// kept in maps, with what was said and asked recorded.
type world struct {
	mu       sync.Mutex
	grants   map[grantKey]string
	names    map[int64]memory.User
	code     string // the live claim code ("": none, or expired)
	wrong    map[int64]int
	refused  map[string]int64 // user:chat:day -> the update answered
	requests []memory.AccessRequest
	nextID   int64
	usage    map[int64]userdata.Usage
	events   []memory.Event
	notices  map[string]bool // user:chat:limit told today (scheduled runs)
	dropped  []int64         // users whose tasks were dropped
	statuses map[[2]int64]string
	calls    map[string]int // how often each method was called
	update   int64          // the last arrival's update id

	sent    []sent // Send: texts to chats other than the arrival's
	edits   []telegram.EditMessageTextParams
	left    []int64
	replies []string // Arrival.Reply and command.Call.Reply
	buttons [][][]telegram.Button
	answers []string // Arrival.Answer and command.Call.Notify
}

type sent struct {
	chat    int64
	text    string
	buttons [][]telegram.Button
}

// grantKey is what a grant is of: a user or a group.
type grantKey struct {
	kind string
	id   int64
}

func newWorld() *world {
	return &world{grants: map[grantKey]string{}, names: map[int64]memory.User{}, wrong: map[int64]int{},
		refused: map[string]int64{}, usage: map[int64]userdata.Usage{}, notices: map[string]bool{},
		statuses: map[[2]int64]string{}, calls: map[string]int{}, nextID: 1}
}

func key(kind string, id int64) grantKey { return grantKey{kind, id} }

func (w *world) called(name string) { w.calls[name]++ }

func (w *world) claimed() bool {
	for _, s := range w.grants {
		if s == memory.AccessOwner {
			return true
		}
	}
	return false
}

func (w *world) AccessClaim(_ context.Context, newCode string, _ time.Duration) (memory.Claim, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.called("AccessClaim")
	if w.claimed() {
		return memory.Claim{Claimed: true}, nil
	}
	if w.code == "" {
		w.code = newCode
	}
	return memory.Claim{Code: w.code, ExpiresAt: time.Now().Add(access.CodeLifetime)}, nil
}

func (w *world) Arrived(_ context.Context, u memory.User, e memory.Event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.names[u.TelegramUserID] = u
	w.events = append(w.events, e)
	return nil
}

func (w *world) Refuse(_ context.Context, r memory.Refusal) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.called("Refuse")
	k := fmt.Sprintf("%d:%d:%s", r.UserID, r.ChatID, r.Day)
	first, ok := w.refused[k]
	if !ok {
		w.refused[k], first = r.UpdateID, r.UpdateID
	}
	return first == r.UpdateID, nil
}

func (w *world) state(userID, chatID int64) memory.AccessState {
	return memory.AccessState{User: w.grants[key(memory.KindUser, userID)], Group: w.grants[key(memory.KindGroup, chatID)], Claimed: w.claimed()}
}

func (w *world) AccessOf(_ context.Context, userID, chatID int64) (memory.AccessState, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.called("AccessOf")
	return w.state(userID, chatID), nil
}

func (w *world) ClaimOwner(_ context.Context, userID, _ int64, same func(string) bool, maxWrong int) (memory.ClaimOutcome, int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.claimed():
		return memory.ClaimTaken, 0, nil
	case w.wrong[userID] >= maxWrong:
		return memory.ClaimTooMany, 0, nil
	case w.code == "":
		return memory.ClaimExpired, maxWrong - w.wrong[userID], nil
	case same(w.code):
		w.grants[key(memory.KindUser, userID)], w.code = memory.AccessOwner, ""
		return memory.ClaimOwned, 0, nil
	}
	w.wrong[userID]++
	return memory.ClaimWrong, maxWrong - w.wrong[userID], nil
}

func (w *world) AskAccess(_ context.Context, r memory.AccessRequest, maxPending int, _ time.Duration) (memory.AccessRequest, memory.AskOutcome, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, q := range w.requests {
		if q.Kind == r.Kind && q.TelegramID == r.TelegramID {
			return q, memory.AskWaiting, nil
		}
	}
	if w.grants[key(r.Kind, r.TelegramID)] == memory.AccessDenied {
		return r, memory.AskDenied, nil
	}
	if len(w.requests) >= maxPending {
		return r, memory.AskFull, nil
	}
	r.ID, w.nextID = w.nextID, w.nextID+1
	w.requests = append(w.requests, r)
	return r, memory.AskOpened, nil
}

func (w *world) DecideAccess(_ context.Context, id int64, status string, _ int64) (memory.AccessRequest, bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, q := range w.requests {
		if q.ID == id {
			w.requests = append(w.requests[:i], w.requests[i+1:]...)
			w.grants[key(q.Kind, q.TelegramID)] = status
			return q, true, nil
		}
	}
	return memory.AccessRequest{}, false, nil
}

func (w *world) SetAccess(_ context.Context, kind string, id int64, status string, _ int64) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := key(kind, id)
	if was := w.grants[k]; was == memory.AccessOwner || was == status {
		return false, nil
	}
	w.grants[k] = status
	return true, nil
}

func (w *world) RevokeAccess(_ context.Context, kind string, id int64) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := key(kind, id)
	if was, ok := w.grants[k]; !ok || was == memory.AccessOwner {
		return false, nil
	}
	delete(w.grants, k)
	return true, nil
}

func (w *world) AccessGrants(context.Context, int) ([]memory.AccessGrant, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var list []memory.AccessGrant
	for k, status := range w.grants {
		list = append(list, memory.AccessGrant{Kind: k.kind, TelegramID: k.id, Status: status, FirstName: w.names[k.id].FirstName})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].TelegramID < list[j].TelegramID })
	return list, nil
}

func (w *world) PendingRequests(context.Context, int) ([]memory.AccessRequest, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]memory.AccessRequest(nil), w.requests...), nil
}

func (w *world) AccessDeciders(_ context.Context, admins []int64) ([]memory.Decider, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var list []memory.Decider
	for _, id := range admins {
		list = append(list, memory.Decider{UserID: id, LanguageCode: "en"})
	}
	for k, status := range w.grants {
		if status == memory.AccessOwner {
			list = append(list, memory.Decider{UserID: k.id, LanguageCode: w.names[k.id].LanguageCode})
		}
	}
	return list, nil
}

func (w *world) RecentUsage(_ context.Context, userID, _ int64, _, _ time.Time) (userdata.Usage, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.called("RecentUsage")
	return w.usage[userID], nil
}

func (w *world) AccessAndUsage(_ context.Context, userID, chatID, _ int64, _, _ time.Time) (memory.AccessState, userdata.Usage, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.called("AccessAndUsage")
	return w.state(userID, chatID), w.usage[userID], nil
}

func (w *world) AddEvents(_ context.Context, events ...memory.Event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, events...)
	for _, e := range events {
		if e.Type == memory.EventRateLimited && e.Payload["task_id"] != nil && e.Payload["notified"] == true {
			w.notices[fmt.Sprintf("%d:%d:%s", e.UserID, e.ChatID, e.Payload["limit"])] = true
		}
	}
	return nil
}

func (w *world) TaskNoticeSent(_ context.Context, userID, chatID int64, limit string, _ time.Time) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.notices[fmt.Sprintf("%d:%d:%s", userID, chatID, limit)], nil
}

func (w *world) DropUserTasks(_ context.Context, userID int64) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dropped = append(w.dropped, userID)
	return 1, nil
}

func (w *world) Send(_ context.Context, chat telegram.Chat, text string, buttons ...[]telegram.Button) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sent = append(w.sent, sent{chat.ID, text, buttons})
	return nil
}

func (w *world) EditMessageText(_ context.Context, p telegram.EditMessageTextParams) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.edits = append(w.edits, p)
	return nil
}

func (w *world) LeaveChat(_ context.Context, chatID int64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.left = append(w.left, chatID)
	return nil
}

func (w *world) MemberStatus(_ context.Context, chatID, userID int64) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.called("MemberStatus")
	if s, ok := w.statuses[[2]int64{chatID, userID}]; ok {
		return s, nil
	}
	return "member", nil
}

// gateOf is a gate over w with policy p.
func gateOf(w *world, p *access.Policy) *Gate {
	if p.Owners == nil {
		p.Owners = &access.Owners{}
	}
	return &Gate{Policy: p, Store: w, Usage: w, Events: w, Tasks: w, Telegram: w, Bot: "membot",
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// Ids the tests use: people, and a group.
const (
	owner    int64 = 1
	admin    int64 = 2
	friend   int64 = 3
	stranger int64 = 4
	blocked  int64 = 5
	group    int64 = -100
)

// arrival is a message of userID in chatID (private when the same), whose
// answers are recorded in w.
func (w *world) arrival(kind Kind, userID, chatID int64) Arrival {
	w.update++
	return Arrival{User: memory.User{TelegramUserID: userID, FirstName: fmt.Sprint("user", userID), LanguageCode: "en"},
		ChatID: chatID, Private: userID == chatID, ChatTitle: "the group", UpdateID: w.update, Kind: kind, Spends: kind == Message,
		Kept: func() []byte { return []byte(`{}`) },
		Reply: func(_ context.Context, text string) error {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.replies = append(w.replies, text)
			return nil
		},
		Answer: func(_ context.Context, text string) error {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.answers = append(w.answers, text)
			return nil
		}}
}

// call is a command, or a press, of userID in chatID with args, whose
// answers are recorded in w.
func (w *world) call(p *access.Policy, userID, chatID int64, args string) command.Call {
	return command.Call{User: memory.User{TelegramUserID: userID, LanguageCode: "en"}, Chat: memory.Chat{ID: chatID},
		Private: userID == chatID, MessageID: 77, Args: args, Admin: p.IsAdmin(userID),
		Reply: func(_ context.Context, text string, buttons ...[]telegram.Button) error {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.replies, w.buttons = append(w.replies, text), append(w.buttons, buttons)
			return nil
		},
		Notify: func(_ context.Context, text string) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.answers = append(w.answers, text)
		}}
}

// admit lets a through g and fails the test on an error.
func admit(t *testing.T, g *Gate, a Arrival) (stop bool) {
	t.Helper()
	stop, err := g.Admit(context.Background(), a)
	if err != nil {
		t.Fatalf("Admit: %v", err)
	}
	return stop
}
