package bot

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/membot/membot/memory"
)

// ReminderStore is what /reminders and /cancel_reminder need.
type ReminderStore interface {
	ChatReminders(ctx context.Context, chatID int64) ([]memory.Reminder, error)
	CancelReminders(ctx context.Context, chatID int64, numbers []int) ([]memory.Reminder, error)
}

func init() {
	addTexts(reminderTexts)
}

const (
	txtReminder            = "reminder"
	txtReminderLate        = "reminder_late"
	txtRemindersList       = "reminders_list"
	txtRemindersNone       = "reminders_none"
	txtCancelReminderUsage = "cancel_reminder_usage"
	txtRemindersCancelled  = "reminders_cancelled"
	txtReminderNoSuch      = "reminder_no_such"
)

var reminderTexts = map[string]map[string]string{
	"en": {
		helpKey("reminders"):       "your reminders",
		helpKey("cancel_reminder"): "cancel a reminder: /cancel_reminder N",
		txtReminder:                "⏰ Reminder: %s",
		txtReminderLate:            "\n\n(It was due at %s, while I was offline. Sorry for the delay.)",
		txtRemindersList:           "Your reminders:\n%s\n\n/cancel_reminder N cancels one, /cancel_reminder all cancels them all.",
		txtRemindersNone:           "No reminders are set. Just ask, for example: “remind me in 2 hours to call mom”.",
		txtCancelReminderUsage:     "Which one? /reminders lists them with numbers: /cancel_reminder 2 cancels the second, /cancel_reminder all cancels them all.",
		txtRemindersCancelled:      "Cancelled:\n%s",
		txtReminderNoSuch:          "There is no reminder number %s; /reminders lists them.",
	},
	"ru": {
		helpKey("reminders"):       "ваши напоминания",
		helpKey("cancel_reminder"): "отменить напоминание: /cancel_reminder N",
		txtReminder:                "⏰ Напоминание: %s",
		txtReminderLate:            "\n\n(Его время было %s, когда я был недоступен. Простите за опоздание.)",
		txtRemindersList:           "Ваши напоминания:\n%s\n\n/cancel_reminder N отменяет одно, /cancel_reminder all — все.",
		txtRemindersNone:           "Напоминаний нет. Просто попросите, например: «напомни через 2 часа позвонить маме».",
		txtCancelReminderUsage:     "Какое? /reminders показывает их с номерами: /cancel_reminder 2 отменяет второе, /cancel_reminder all — все.",
		txtRemindersCancelled:      "Отменено:\n%s",
		txtReminderNoSuch:          "Напоминания с номером %s нет; /reminders покажет список.",
	},
}

// cmdReminders lists the chat's pending reminders, soonest first, numbered
// for /cancel_reminder.
func cmdReminders(ctx context.Context, h *Handler, in *incoming) error {
	list, err := h.Memory.ChatReminders(ctx, in.msg.Chat.ID)
	if err != nil {
		return storageError(err)
	}
	if len(list) == 0 {
		return h.reply(ctx, in, T(in.lang(), txtRemindersNone))
	}
	return h.reply(ctx, in, fmt.Sprintf(T(in.lang(), txtRemindersList), h.reminderLines(list, true)))
}

// cmdCancelReminder cancels reminders by their /reminders numbers
// ("/cancel_reminder 2", "/cancel_reminder 1 3"), or all of them.
func cmdCancelReminder(ctx context.Context, h *Handler, in *incoming) error {
	lang := in.lang()
	numbers, all, ok := numberArgs(in)
	if !ok {
		return h.reply(ctx, in, T(lang, txtCancelReminderUsage))
	}
	if all {
		numbers = nil
	}
	cancelled, err := h.Memory.CancelReminders(ctx, in.msg.Chat.ID, numbers)
	if err != nil {
		return storageError(err)
	}
	if len(cancelled) == 0 {
		if all {
			return h.reply(ctx, in, T(lang, txtRemindersNone))
		}
		return h.reply(ctx, in, fmt.Sprintf(T(lang, txtReminderNoSuch), strings.Trim(fmt.Sprint(numbers), "[]")))
	}
	return h.reply(ctx, in, fmt.Sprintf(T(lang, txtRemindersCancelled), h.reminderLines(cancelled, false)))
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
