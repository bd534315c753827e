package bot

import (
	"context"

	"github.com/membot/membot/bot/choice"
	"github.com/membot/membot/bot/export"
	"github.com/membot/membot/bot/facts"
	"github.com/membot/membot/bot/gate"
	"github.com/membot/membot/bot/remind"
	"github.com/membot/membot/bot/tasks"
	"github.com/membot/membot/bot/usage"
	"github.com/membot/membot/memory"
)

// Stores are the handler's stores, one per domain of what is kept. Each
// field declares only what the handler uses of its domain, so that a
// command reaches no more than its own; memory's stores implement them.
type Stores struct {
	Access        gate.Store         // who uses the bot and who may: the gate (bot/gate)
	Conversations ConversationStore  // each chat's current conversation: /new, /retry, /undo
	Choices       ChoiceStore        // what a conversation is answered with: /mode, /model, /voice
	Approvals     ApprovalStore      // tool calls that wait for a yes: approvals.go, bot/approve
	Facts         facts.Store        // what the bot remembers of a user: bot/facts
	Reminders     ReminderStore      // reminders and scheduled tasks: bot/remind, bot/tasks, scheduled.go
	Events        EventStore         // what happened, for the operator and the limits
	Usage         UsageStore         // the tokens and messages counted: the gate, bot/usage
	Transcripts   export.Transcripts // the conversations as read back: /history, /export
	Inbox         Inbox              // the durable inbox of updates, while a turn runs
}

// ConversationStore keeps each chat's current conversation: /new, /retry
// and /undo (memory.Store).
type ConversationStore interface {
	Reset(ctx context.Context, chat memory.Chat, userID int64) (string, error)
	Rollback(ctx context.Context, in memory.RollbackStart) (*memory.Rollback, error)
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
	gate.Events
	export.Events // the exports a user had lately
}

// UsageStore reads the usage the limits count and /usage, /stats and
// /user show (memory/userdata's Store).
type UsageStore interface {
	gate.Usage // the limits
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
	gate.Tasks // a user no longer served loses their tasks
}
