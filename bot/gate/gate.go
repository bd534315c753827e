// Package gate is the gate every update passes before anything of it
// reaches the model or the messages table: the allowlist, owner mode's
// claim and pairing (the owner's Allow / Deny / Block, /users), the rate
// and daily token limits, and who administers a group. It enforces
// bot/access's Policy with the stores it declares and the few Telegram
// calls it makes; bot describes each update as an Arrival and routes the
// gate's commands and buttons to it as command.Calls.
package gate

import (
	"context"
	"log/slog"
	"time"

	"github.com/membot/membot/bot/access"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/userdata"
)

// Store keeps the users, the owner, the claim code and who else may use
// the bot (memory.Access).
type Store interface {
	ClaimStore
	// Arrived records a user and the event of their message's arrival.
	Arrived(ctx context.Context, u memory.User, e memory.Event) error
	// Refuse records a refusal by the gate and tells whether to answer it.
	Refuse(ctx context.Context, r memory.Refusal) (bool, error)
	AccessOf(ctx context.Context, userID, chatID int64) (memory.AccessState, error)
	ClaimOwner(ctx context.Context, userID, updateID int64, same func(code string) bool, maxWrong int) (memory.ClaimOutcome, int, error)
	AskAccess(ctx context.Context, r memory.AccessRequest, maxPending int, lifetime time.Duration) (memory.AccessRequest, memory.AskOutcome, error)
	DecideAccess(ctx context.Context, id int64, status string, by int64) (memory.AccessRequest, bool, error)
	SetAccess(ctx context.Context, kind string, telegramID int64, status string, by int64) (bool, error)
	RevokeAccess(ctx context.Context, kind string, telegramID int64) (bool, error)
	AccessGrants(ctx context.Context, limit int) ([]memory.AccessGrant, error)
	PendingRequests(ctx context.Context, limit int) ([]memory.AccessRequest, error)
	AccessDeciders(ctx context.Context, admins []int64) ([]memory.Decider, error)
}

// Usage reads what the limits count (memory/userdata's Store).
type Usage interface {
	RecentUsage(ctx context.Context, userID, updateID int64, dayStart, windowStart time.Time) (userdata.Usage, error)
	// AccessAndUsage is Store.AccessOf and RecentUsage in one round trip.
	AccessAndUsage(ctx context.Context, userID, chatID, updateID int64, dayStart, windowStart time.Time) (memory.AccessState, userdata.Usage, error)
}

// Events keeps what the limits stopped (memory.Events).
type Events interface {
	AddEvents(ctx context.Context, events ...memory.Event) error
	// TaskNoticeSent tells whether a scheduled run's limit was told since.
	TaskNoticeSent(ctx context.Context, userID, chatID int64, limit string, since time.Time) (bool, error)
}

// Tasks drops the scheduled tasks of a user no longer served (memory.Reminders).
type Tasks interface {
	DropUserTasks(ctx context.Context, userID int64) (int64, error)
}

// Telegram is what the gate asks of Telegram besides answering the update
// itself: telling the owner and the askers in their chats, rewriting a
// decided request, leaving a group the owner denied, and who administers
// a group.
type Telegram interface {
	Send(ctx context.Context, chat telegram.Chat, text string, buttons ...[]telegram.Button) error
	EditMessageText(ctx context.Context, p telegram.EditMessageTextParams) error
	LeaveChat(ctx context.Context, chatID int64) error
	MemberStatus(ctx context.Context, chatID, userID int64) (string, error)
}

// Gate decides whom the bot serves and how much. Its methods are safe for
// concurrent use.
type Gate struct {
	Policy   *access.Policy
	Store    Store
	Usage    Usage
	Events   Events
	Tasks    Tasks
	Telegram Telegram
	Log      *slog.Logger
	// Bot is the bot's username: the claim link names it.
	Bot string

	chatAdmins access.ChatAdmins // who administers a chat, lately (ChatAdmin)
}

// Kind is what arrived.
type Kind int

const (
	Message Kind = iota // a message for the model: text, voice, a file
	Command             // one of the bot's commands
	Press               // a press of one of the bot's buttons
	Joined              // the bot was added to a group, or left it
)

// Arrival is an update as the gate sees it: who, where, what, and how the
// gate answers it.
type Arrival struct {
	User      memory.User // who wrote, or pressed
	ChatID    int64
	Private   bool   // a private chat (a group otherwise)
	ChatTitle string // a group's title, for the owner's request
	UpdateID  int64
	Kind      Kind
	// Command is a command's name and Args its arguments (Kind Command).
	Command, Args string
	// Spends: what arrived calls the model, so the daily token limit stops it.
	Spends bool
	// TaskID is the scheduled task the update is a run of (0: none).
	TaskID int64
	// Old and New are the bot's membership before and after (Kind Joined):
	// "member", "left", "kicked", ...
	Old, New string
	// Kept is what is stored of the update in place of what Telegram sent
	// when it is refused: ids only, none of what a stranger wrote.
	Kept func() []byte
	// Reply sends one of the bot's texts to the chat.
	Reply func(ctx context.Context, text string) error
	// Answer answers a press (Kind Press) with a short notice.
	Answer func(ctx context.Context, text string) error
}

func (a Arrival) userID() int64 { return a.User.TelegramUserID }

func (a Arrival) lang() string { return a.User.LanguageCode }

// Admit is the gate every update passes first: it decides, before
// anything of it reaches the model or the messages table, whether it is
// handled. When stop is true the sender has been answered (or, for
// repeats, deliberately not) and the update is done.
func (g *Gate) Admit(ctx context.Context, a Arrival) (stop bool, err error) {
	switch a.Kind {
	case Joined:
		return true, g.joined(ctx, a) // pairing.go
	case Press:
		if ok, err := g.admitPress(ctx, a); !ok {
			return true, err
		}
		stop, err := g.overLimit(ctx, a, nil)
		if stop {
			// Answered so the client stops its spinner; the reason went to the chat.
			g.notify(ctx, a, "")
		}
		return stop, err
	}
	return g.admit(ctx, a)
}

// admit is the gate of a message or a command (or of a group the bot
// joined).
func (g *Gate) admit(ctx context.Context, a Arrival) (stop bool, err error) {
	p := g.Policy
	userID := a.userID()
	if a.TaskID != 0 && !p.ServesTaskOwner(userID, a.ChatID) {
		return true, g.dropTasks(ctx, a)
	}
	switch {
	case p.Allows(userID, a.ChatID):
		return g.overLimit(ctx, a, nil)
	case p.Mode() == access.Owner && a.TaskID != 0:
		// A run acts for its task's owner: one the owner no longer lets
		// in loses their tasks, and nobody is asked again at each run.
		st, usage, err := g.stateOf(ctx, a)
		if err != nil {
			return true, err
		}
		if verdict(st, userID, a.Private) != serve {
			return true, g.dropTasks(ctx, a)
		}
		return g.overLimit(ctx, a, usage)
	case p.Mode() == access.Owner:
		return g.admitByOwner(ctx, a) // pairing.go
	}
	return true, g.refuse(ctx, a, func(context.Context) (string, error) {
		text := texts.For(a.lang()).AccessDenied(userID)
		if !a.Private {
			text += "\n" + texts.For(a.lang()).GroupID(a.ChatID)
		}
		return text, nil
	})
}

// dropTasks answers a scheduled run of a user the bot no longer serves
// (taken out of ALLOWED_USER_IDS, or by the owner): nothing is said in the
// chat, and the user's tasks in every chat are cancelled, so none of them
// runs again.
func (g *Gate) dropTasks(ctx context.Context, a Arrival) error {
	n, err := g.Tasks.DropUserTasks(ctx, a.userID())
	if err != nil {
		return err
	}
	g.Log.Info("a scheduled run not answered: its owner is no longer allowed; their tasks are cancelled",
		"user_id", a.userID(), "chat_id", a.ChatID, "task_id", a.TaskID, "cancelled", n)
	return nil
}

// limits tells whether a limit counts userID's messages.
func (g *Gate) limits(userID int64) bool {
	p := g.Policy
	return !p.IsAdmin(userID) && (p.DailyTokenLimit > 0 || p.RatePerMinute > 0)
}

// usageOf reads what the limits count of a's sender.
func (g *Gate) usageOf(ctx context.Context, a Arrival) (userdata.Usage, error) {
	now := g.Policy.Now()
	return g.Usage.RecentUsage(ctx, a.userID(), a.UpdateID, g.Policy.DayStart(now), now.Add(-time.Minute))
}

// overLimit stops a message or a button press over the sender's rate or
// daily token limit (a press only counts against the tokens when it calls
// the model: Approve and Reject go on with a turn). usage is what the
// limits count when read already (nil: read here). When stop is true the
// sender has been told (once a minute for the rate).
func (g *Gate) overLimit(ctx context.Context, a Arrival, usage *userdata.Usage) (stop bool, err error) {
	p := g.Policy
	userID := a.userID()
	if !g.limits(userID) {
		return false, nil
	}
	if usage == nil {
		u, err := g.usageOf(ctx, a)
		if err != nil {
			return true, err
		}
		usage = &u
	}
	t := texts.For(a.lang())
	switch {
	case p.RatePerMinute > 0 && usage.Received >= p.RatePerMinute:
		// One notice a minute: a flood of messages gets one answer, not a flood.
		return true, g.limited(ctx, a, "rate", usage.RateNotices == 0, t.RateLimited(p.RatePerMinute))
	case p.DailyTokenLimit > 0 && usage.TokensToday >= p.DailyTokenLimit && a.Spends:
		// Most commands cost no tokens, and /usage must work at the limit;
		// /retry writes a new answer, so it is stopped like a message.
		// A scheduled run is told once a day in its chat: a task that runs
		// every few minutes must not repeat the notice at each run.
		tell := true
		if a.TaskID != 0 {
			sent, err := g.Events.TaskNoticeSent(ctx, userID, a.ChatID, "tokens", p.DayStart(p.Now()))
			if err != nil {
				return true, err
			}
			tell = !sent
		}
		return true, g.limited(ctx, a, "tokens", tell, t.TokenLimit(p.DailyTokenLimit, p.Zone()))
	}
	return false, nil
}

// limited records a message stopped by a limit and, when tell, says why.
func (g *Gate) limited(ctx context.Context, a Arrival, limit string, tell bool, text string) error {
	ev := memory.Event{Type: memory.EventRateLimited, UserID: a.userID(), ChatID: a.ChatID,
		UpdateID: a.UpdateID, Payload: map[string]any{"limit": limit, "notified": tell}}
	if a.TaskID != 0 {
		ev.Payload["task_id"] = a.TaskID
	}
	if err := g.Events.AddEvents(ctx, ev); err != nil {
		return err
	}
	g.Log.Info("message stopped by a limit", "user_id", a.userID(), "limit", limit, "notified", tell)
	if !tell {
		return nil
	}
	return a.Reply(ctx, text)
}

// TokensLeft is how many tokens userID has left today
// (access.Policy.TokensLeft), the rows of update updateID left out.
func (g *Gate) TokensLeft(ctx context.Context, userID, updateID int64) (left int64, limited bool, err error) {
	return g.Policy.TokensLeft(userID, func(dayStart time.Time) (int64, error) {
		usage, err := g.Usage.RecentUsage(ctx, userID, updateID, dayStart, g.Policy.Now().Add(-time.Minute))
		return usage.TokensToday, err
	})
}

// BudgetSpent tells whether userID has used their daily tokens up.
func (g *Gate) BudgetSpent(ctx context.Context, userID, updateID int64) (bool, error) {
	left, limited, err := g.TokensLeft(ctx, userID, updateID)
	return err == nil && limited && left <= 0, err
}

// refuse turns away someone not let in, storing nothing of what they
// wrote (Arrival.Kept). The first refusal of a day in a chat is answered
// with what answer says ("": no answer); the rest of the day, nothing is
// sent and answer is not called.
func (g *Gate) refuse(ctx context.Context, a Arrival, answer func(context.Context) (string, error)) error {
	first, err := g.recordRefusal(ctx, a)
	if err != nil || !first {
		return err
	}
	text, err := answer(ctx)
	if err != nil || text == "" {
		return err
	}
	return a.Reply(ctx, text)
}

// recordRefusal records a refused update and blanks its stored payload;
// first is true for the first refusal of the day in its chat.
func (g *Gate) recordRefusal(ctx context.Context, a Arrival) (first bool, err error) {
	p := g.Policy
	var kept []byte
	if a.Kept != nil {
		kept = a.Kept()
	}
	first, err = g.Store.Refuse(ctx, memory.Refusal{UserID: a.userID(), ChatID: a.ChatID, UpdateID: a.UpdateID,
		Day: p.Now().In(p.Zone()).Format(time.DateOnly), Payload: kept})
	if err != nil {
		return false, err
	}
	g.Log.Info("update refused: sender not allowed", "user_id", a.userID(), "chat_id", a.ChatID, "answered", first)
	return first, nil
}

// admitPress tells whether a button press may be handled; a press from
// someone not allowed gets a short notice instead.
func (g *Gate) admitPress(ctx context.Context, a Arrival) (bool, error) {
	if ok, err := g.LetIn(ctx, a.userID(), a.ChatID, a.Private); ok || err != nil {
		return ok, err
	}
	if _, err := g.recordRefusal(ctx, a); err != nil {
		return false, err
	}
	return false, a.Answer(ctx, texts.For(a.lang()).AccessDeniedShort)
}

// notify answers a press with a short notice. It never fails the update:
// a press answered late (say, after a restart) is refused by Telegram,
// and the notice is only a courtesy.
func (g *Gate) notify(ctx context.Context, a Arrival, text string) {
	if err := a.Answer(ctx, text); err != nil {
		g.Log.Debug("answering a button press failed", "chat_id", a.ChatID, "err", err)
	}
}

// GroupAdmin tells whether userID may change or see what a chat shares:
// anyone in a private chat; in a group, its creator and administrators
// (getChatMember) and the bot's admins.
func (g *Gate) GroupAdmin(ctx context.Context, userID, chatID int64, private bool) (bool, error) {
	if private || g.Policy.IsAdmin(userID) {
		return true, nil
	}
	return g.ChatAdmin(ctx, chatID, userID)
}

// OwnRowsOnly returns whose rows a command may touch in a chat: 0 (all of
// the chat's) for a group's admins and in private chats, otherwise the
// sender's id, so a member cancels their own reminders and sees their own
// approvals and no one else's.
func (g *Gate) OwnRowsOnly(ctx context.Context, userID, chatID int64, private bool) (int64, error) {
	admin, err := g.GroupAdmin(ctx, userID, chatID, private)
	if err != nil || admin {
		return 0, err
	}
	return userID, nil
}

// ChatAdmin tells whether a user is the creator or an administrator of a
// chat (getChatMember), as the gate remembers it lately.
func (g *Gate) ChatAdmin(ctx context.Context, chatID, userID int64) (bool, error) {
	return g.chatAdmins.Is(ctx, chatID, userID, g.Telegram.MemberStatus)
}
