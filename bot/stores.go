package bot

import (
	"context"
	"time"

	"github.com/membot/membot/bot/choice"
	"github.com/membot/membot/bot/export"
	"github.com/membot/membot/bot/facts"
	"github.com/membot/membot/bot/media"
	"github.com/membot/membot/bot/remind"
	"github.com/membot/membot/bot/tasks"
	"github.com/membot/membot/bot/usage"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/userdata"
)

// Stores are the handler's stores, one per domain of what is kept. Each
// field declares only what the handler uses of its domain, so that a
// command reaches no more than its own; memory's stores implement them.
type Stores struct {
	Access        AccessStore        // who uses the bot and who may: access.go, pairing.go
	Conversations ConversationStore  // each chat's current conversation: /new, /retry, /undo, albums
	Choices       ChoiceStore        // what a conversation is answered with: /mode, /model, /voice
	Approvals     ApprovalStore      // tool calls that wait for a yes: approvals.go, bot/approve
	Facts         facts.Store        // what the bot remembers of a user: bot/facts
	Reminders     ReminderStore      // reminders and scheduled tasks: bot/remind, bot/tasks, scheduled.go
	Events        EventStore         // what happened, for the operator and the limits
	Usage         UsageStore         // the tokens and messages counted: access.go, bot/usage
	Transcripts   export.Transcripts // the conversations as read back: /history, /export
	Inbox         Inbox              // the durable inbox of updates, while a turn runs
}

// AccessStore keeps the users, the owner, the claim code and who else may
// use the bot (memory.Access).
type AccessStore interface {
	ClaimStore // claim.go
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

// ConversationStore keeps each chat's current conversation: /new, /retry
// and /undo, and the albums media waits for (memory.Store).
type ConversationStore interface {
	Reset(ctx context.Context, chat memory.Chat, userID int64) (string, error)
	Rollback(ctx context.Context, in memory.RollbackStart) (*memory.Rollback, error)
	media.AlbumStore
}

// ChoiceStore keeps what a conversation is answered with: its mode and
// model (bot/choice), and whether the chat's answers are spoken, /voice
// (memory.Choices).
type ChoiceStore interface {
	choice.ModeStore
	choice.ModelStore
	choice.VoiceStore
}

// EventStore keeps the events: what arrived, was refused, sent (memory.Events).
type EventStore interface {
	AddEvents(ctx context.Context, events ...memory.Event) error
	export.Events // the exports a user had lately
	// TaskNoticeSent tells whether a scheduled run's limit was told since.
	TaskNoticeSent(ctx context.Context, userID, chatID int64, limit string, since time.Time) (bool, error)
}

// UsageStore reads the usage the limits count and /usage, /stats and
// /user show (memory/userdata's Store).
type UsageStore interface {
	RecentUsage(ctx context.Context, userID, updateID int64, dayStart, windowStart time.Time) (userdata.Usage, error)
	usage.Store
}

// ReminderStore keeps reminders and scheduled tasks: what /reminders,
// /cancel_reminder and /tasks need (bot/remind, bot/tasks), and the runs.
type ReminderStore interface {
	remind.Store
	tasks.Store
	// TaskStopped tells whether a task was paused or deleted since its run
	// was queued (scheduled.go).
	TaskStopped(ctx context.Context, id int64) (bool, error)
	// DropUserTasks deletes the tasks of a user no longer served (access.go).
	DropUserTasks(ctx context.Context, userID int64) (int64, error)
}
