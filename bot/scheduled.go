package bot

import (
	"context"
	"fmt"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
)

// scheduledRun is what a task's run (queue.TaskRun, an update the
// scheduler put in the inbox) is handled as: its prompt as a message of
// the user who set the task, in the chat and topic it was set in, routed
// to the model whatever it says (a prompt is no command) and gated like
// any message. Only the inbox row's task_id makes an update a run.
func scheduledRun(u *queue.Update) *incoming {
	r := u.Run
	chat := &tgbotapi.Chat{ID: r.ChatID, Type: "group"}
	if r.ChatID == r.From.ID {
		chat.Type = "private"
	}
	from := &tgbotapi.User{ID: r.From.ID, UserName: r.From.Username, FirstName: r.From.FirstName,
		LastName: r.From.LastName, LanguageCode: r.From.LanguageCode}
	msg := &tgbotapi.Message{Chat: chat, From: from, Date: int(time.Now().Unix())}
	// The model is told the message is the task's, not typed just now.
	mark := fmt.Sprintf("[scheduled task #%d] ", r.TaskID)
	if r.Late {
		mark = fmt.Sprintf("[scheduled task #%d, due %s UTC, run late] ", r.TaskID, r.DueAt.UTC().Format("2006-01-02 15:04"))
	}
	author := ""
	if !chat.IsPrivate() {
		author = texts.Author(from.FirstName+" "+from.LastName, from.UserName, from.ID) + ": "
	}
	return &incoming{update: u, decoded: &tgbotapi.Update{Message: msg}, thread: r.Thread, msg: msg, user: userOf(from),
		run: r, route: route{action: converse, msg: msg, text: author + mark + r.Prompt}}
}

// runTask answers a task's run; a late one is preceded by a note saying
// when it was due (once: not again by a run that takes it over). A run
// whose task was paused or deleted after it was queued (the bot was busy,
// or down) is not answered; one that finds the bot can no longer write to
// the chat (blocked, removed) pauses its task.
func (h *Handler) runTask(ctx context.Context, in *incoming) (delivery *queue.Delivery, err error) {
	if stopped, err := h.Stores.Reminders.TaskStopped(ctx, in.run.TaskID); err != nil || stopped {
		if stopped {
			h.Log.Info("a scheduled run not answered: its task was paused or deleted since it was queued",
				"task_id", in.run.TaskID, "chat_id", in.run.ChatID)
		}
		return nil, err
	}
	defer func() {
		if telegram.IsGone(err) {
			// Every later run would call the model for nobody: the task
			// waits, paused, until someone who can write there resumes it.
			if _, pauseErr := h.Stores.Reminders.SetTaskStatus(ctx, in.run.ChatID, in.run.TaskID, 0, memory.TaskPause, time.Time{}); pauseErr == nil {
				h.Log.Warn("a scheduled task paused: the bot can no longer write to its chat", "task_id", in.run.TaskID,
					"chat_id", in.run.ChatID, "err", err)
			}
		}
	}()
	if r := in.run; r.Late && in.update.Attempts <= 1 {
		if err := h.reply(ctx, in, tr(in.lang()).TaskLate(texts.Preview(r.Prompt, 60), h.clock(r.DueAt))); err != nil {
			return nil, err
		}
	}
	return h.converse(ctx, in, in.route.text)
}
