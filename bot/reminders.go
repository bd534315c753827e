package bot

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/membot/membot/bot/tasks"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
)

// ReminderStore is what /reminders, /cancel_reminder and /tasks need.
type ReminderStore interface {
	ChatReminders(ctx context.Context, chatID int64) ([]memory.Reminder, error)
	CancelReminders(ctx context.Context, chatID int64, numbers []int, ownerID int64) ([]memory.Reminder, error)
	tasks.Store
	// TaskStopped tells whether a task was paused or deleted since its run
	// was queued (scheduled.go).
	TaskStopped(ctx context.Context, id int64) (bool, error)
	// DropUserTasks deletes the tasks of a user no longer served (access.go).
	DropUserTasks(ctx context.Context, userID int64) (int64, error)
}

// cmdReminders lists the chat's pending reminders, soonest first, numbered
// for /cancel_reminder.
func cmdReminders(ctx context.Context, h *Handler, in *incoming) error {
	list, err := h.Stores.Reminders.ChatReminders(ctx, in.msg.Chat.ID)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		return h.reply(ctx, in, tr(in.lang()).RemindersNone)
	}
	return h.reply(ctx, in, tr(in.lang()).RemindersList(h.reminderLines(list, true)))
}

// cmdCancelReminder cancels reminders by their /reminders numbers
// ("/cancel_reminder 2", "/cancel_reminder 1 3"), or all of them.
func cmdCancelReminder(ctx context.Context, h *Handler, in *incoming) error {
	lang := in.lang()
	numbers, all, ok := numberArgs(in)
	if !ok {
		return h.reply(ctx, in, tr(lang).CancelReminderUsage)
	}
	if all {
		numbers = nil
	}
	owner, err := h.ownRowsOnly(ctx, in)
	if err != nil {
		return err
	}
	cancelled, err := h.Stores.Reminders.CancelReminders(ctx, in.msg.Chat.ID, numbers, owner)
	if err != nil {
		return err
	}
	if len(cancelled) == 0 && owner != 0 {
		return h.reply(ctx, in, tr(lang).RemindersOwnOnly)
	}
	if len(cancelled) == 0 {
		if all {
			return h.reply(ctx, in, tr(lang).RemindersNone)
		}
		return h.reply(ctx, in, tr(lang).ReminderNoSuch(strings.Trim(fmt.Sprint(numbers), "[]")))
	}
	return h.reply(ctx, in, tr(lang).RemindersCancelled(h.reminderLines(cancelled, false)))
}

// reminderLines shows reminders one per line: "1. 2026-11-21 18:00 — text".
func (h *Handler) reminderLines(list []memory.Reminder, numbered bool) string {
	lines := make([]string, len(list))
	for i, r := range list {
		lines[i] = h.clock(r.DueAt) + " — " + r.Text
		if numbered {
			lines[i] = strconv.Itoa(i+1) + ". " + lines[i]
		} else {
			lines[i] = "• " + lines[i]
		}
	}
	return strings.Join(lines, "\n")
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
	owner, err := h.ownRowsOnly(ctx, in)
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
