// Package tasks is /tasks: the chat's scheduled tasks (schedule_task,
// bot/remind runs them) listed with a button to pause or resume and one
// to delete each.
package tasks

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/schedule"
	"github.com/membot/membot/memory"
)

// Store is the part of memory /tasks works.
type Store interface {
	ChatTasks(ctx context.Context, chatID int64) ([]memory.Reminder, error)
	SetTaskStatus(ctx context.Context, chatID, id, userID int64, status string, next time.Time) (*memory.Reminder, error)
}

// Prefix is the callback data's prefix of the buttons: "task:pause:ID",
// "task:resume:ID", "task:delete:ID".
const Prefix = "task"

// previewRunes bounds each prompt in the list (a chat's ten prompts whole
// would pass a message's limit); the tool's result and the approval show
// them whole.
const previewRunes = 150

// List is /tasks' message: the chat's tasks, numbered, each with its
// schedule and next run (in loc, TIMEZONE), and a row of buttons for each.
func List(ctx context.Context, store Store, chatID int64, t *texts.Texts, loc *time.Location) (string, [][]telegram.Button, error) {
	list, err := store.ChatTasks(ctx, chatID)
	if err != nil {
		return "", nil, err
	}
	if len(list) == 0 {
		return t.TasksNone, nil, nil
	}
	lines := make([]string, len(list))
	rows := make([][]telegram.Button, len(list))
	for i, r := range list {
		n := i + 1
		prompt := texts.Preview(r.Text, previewRunes)
		if r.Kind == memory.KindReminder {
			prompt = t.TaskReminder + prompt
		}
		line := t.TaskLine(n, prompt, r.Schedule, r.TimeZone)
		id := strconv.FormatInt(r.ID, 10)
		toggle := telegram.Button{Text: t.TaskPause(n), Data: Prefix + ":pause:" + id}
		if r.Status == memory.TaskPause {
			line += t.TaskIsPaused
			toggle = telegram.Button{Text: t.TaskResume(n), Data: Prefix + ":resume:" + id}
		} else {
			line += t.TaskNext(texts.Clock(r.DueAt, loc))
		}
		lines[i] = line
		rows[i] = []telegram.Button{toggle, {Text: t.TaskDelete(n), Data: Prefix + ":delete:" + id}}
	}
	return t.TasksList(strings.Join(lines, "\n")), rows, nil
}

// Press does what a button says ("pause:ID", "resume:ID", "delete:ID") to
// a task of the chat; with a userID, only to a task that user set. It
// returns the short notice the presser is told. A resumed task runs next
// at its next occurrence after now: not for those it missed while paused.
func Press(ctx context.Context, store Store, chatID, userID int64, arg string, t *texts.Texts, loc *time.Location) (string, error) {
	action, idText, _ := strings.Cut(arg, ":")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil {
		return t.TaskNoSuch, nil
	}
	status := map[string]string{"pause": memory.TaskPause, "resume": memory.TaskResume, "delete": memory.TaskDelete}[action]
	if status == "" {
		return t.TaskNoSuch, nil
	}
	var next time.Time
	if status == memory.TaskResume {
		if next, err = nextRun(ctx, store, chatID, id, loc); err != nil || next.IsZero() {
			return t.TaskNoSuch, err
		}
	}
	r, err := store.SetTaskStatus(ctx, chatID, id, userID, status, next)
	switch {
	case errors.Is(err, memory.ErrNoSuchTask):
		return t.TaskNoSuch, nil
	case err != nil:
		return "", err
	case status == memory.TaskPause:
		return t.TaskPaused, nil
	case status == memory.TaskResume:
		return t.TaskResumed(texts.Clock(r.DueAt, loc)), nil
	}
	return t.TaskDeleted, nil
}

// nextRun is when task id of the chat runs next if resumed now (zero when
// the chat has no such task, or its schedule never comes again).
func nextRun(ctx context.Context, store Store, chatID, id int64, loc *time.Location) (time.Time, error) {
	list, err := store.ChatTasks(ctx, chatID)
	if err != nil {
		return time.Time{}, err
	}
	for _, r := range list {
		if r.ID != id {
			continue
		}
		sch, err := schedule.Stored(r.Schedule, r.TimeZone, loc)
		if err != nil {
			return time.Time{}, nil
		}
		return sch.Next(time.Now()), nil
	}
	return time.Time{}, nil
}

// Zone is the zone the bot shows times in (access.Policy).
type Zone interface {
	Zone() *time.Location
}

// Commands are /tasks and its buttons.
type Commands struct {
	Store Store
	Zone  Zone
}

// Tasks lists the chat's scheduled tasks with their buttons.
func (s Commands) Tasks(ctx context.Context, c command.Call) error {
	text, buttons, err := List(ctx, s.Store, c.Chat.ID, texts.For(c.Lang()), s.Zone.Zone())
	if err != nil {
		return err
	}
	return c.Reply(ctx, text, buttons...)
}

// Press pauses, resumes or deletes a task by its button (in a group, a
// member's own only) and shows the list as it is now.
func (s Commands) Press(ctx context.Context, c command.Call) error {
	owner, err := c.OwnRows(ctx)
	if err != nil {
		return err
	}
	t, loc := texts.For(c.Lang()), s.Zone.Zone()
	notice, err := Press(ctx, s.Store, c.Chat.ID, owner, c.Args, t, loc)
	if err != nil {
		return err
	}
	text, buttons, err := List(ctx, s.Store, c.Chat.ID, t, loc)
	if err != nil {
		return err
	}
	c.Edit(ctx, text, buttons...)
	c.Notify(ctx, notice)
	return nil
}
