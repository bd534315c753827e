package bot

import (
	"context"

	"github.com/membot/membot/bot/gate"
	"github.com/membot/membot/bot/remind"
	"github.com/membot/membot/bot/tasks"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/memory/queue"
)

// ReminderStore is what /reminders, /cancel_reminder and /tasks need.
type ReminderStore interface {
	remind.Store
	tasks.Store
	// TaskStopped tells whether a task was paused or deleted since its run
	// was queued (scheduled.go).
	TaskStopped(ctx context.Context, id int64) (bool, error)
	gate.Tasks // a user no longer served loses their tasks
}

// cmdReminders lists the chat's pending reminders (bot/remind).
func cmdReminders(ctx context.Context, h *Handler, in *incoming) error {
	return h.replyWith(ctx, in)(remind.List(ctx, h.Stores.Reminders, in.msg.Chat.ID, tr(in.lang()), h.Access.Zone()))
}

// cmdCancelReminder cancels reminders by their /reminders numbers
// ("/cancel_reminder 2", "/cancel_reminder 1 3"), or all of them
// (bot/remind); in a group, a member's own only.
func cmdCancelReminder(ctx context.Context, h *Handler, in *incoming) error {
	numbers, all, ok := numberArgs(in)
	if !ok {
		return h.reply(ctx, in, tr(in.lang()).CancelReminderUsage)
	}
	if all {
		numbers = nil
	}
	owner, err := h.gate().OwnRowsOnly(ctx, in.user.TelegramUserID, in.msg.Chat.ID, in.msg.Chat.IsPrivate())
	if err != nil {
		return err
	}
	return h.replyWith(ctx, in)(remind.Cancel(ctx, h.Stores.Reminders, in.msg.Chat.ID, numbers, owner, tr(in.lang()), h.Access.Zone()))
}

// cmdTasks lists the chat's scheduled tasks with their buttons (bot/tasks).
func cmdTasks(ctx context.Context, h *Handler, in *incoming) error {
	text, buttons, err := tasks.List(ctx, h.Stores.Reminders, in.msg.Chat.ID, tr(in.lang()), h.Access.Zone())
	if err != nil {
		return err
	}
	return h.reply(ctx, in, text, buttons...)
}

// pressTask pauses, resumes or deletes a task by its /tasks button (in a
// group, a member's own only) and shows the list as it is now.
func pressTask(ctx context.Context, h *Handler, in *incoming, arg string) (*queue.Delivery, error) {
	owner, err := h.gate().OwnRowsOnly(ctx, in.user.TelegramUserID, in.msg.Chat.ID, in.msg.Chat.IsPrivate())
	if err != nil {
		return nil, err
	}
	t, chatID := tr(in.lang()), in.msg.Chat.ID
	notice, err := tasks.Press(ctx, h.Stores.Reminders, chatID, owner, arg, t, h.Access.Zone())
	if err != nil {
		return nil, err
	}
	text, buttons, err := tasks.List(ctx, h.Stores.Reminders, chatID, t, h.Access.Zone())
	if err != nil {
		return nil, err
	}
	if err := h.Client.EditMessageText(ctx, telegram.EditMessageTextParams{ChatID: chatID, MessageID: int64(in.msg.MessageID), Text: text, Buttons: buttons}); err != nil {
		h.Log.Debug("updating the list of tasks failed", "chat_id", chatID, "err", err)
	}
	h.notify(ctx, in, notice)
	return nil, nil
}
