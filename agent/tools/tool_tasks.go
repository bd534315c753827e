package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/memory"
)

// newListTasks lists the chat's scheduled tasks, so that the model can
// answer "what have I scheduled?" and name the one to cancel.
func newListTasks(env Env) agent.Tool {
	return agent.Tool{
		Name:        "list_tasks",
		Description: "Lists the scheduled tasks and recurring reminders of this chat (schedule_task's), with their #id, prompt, schedule and next run.",
		Parameters:  map[string]any{"type": "object", "properties": map[string]any{}},
		Run: func(ctx context.Context, turn *agent.TurnInfo, _ json.RawMessage) (string, error) {
			list, err := env.Reminders.ChatTasks(ctx, turn.Chat.ID)
			if err != nil {
				return "", err
			}
			if len(list) == 0 {
				return "This chat has no scheduled tasks.", nil
			}
			var b strings.Builder
			for _, t := range list {
				what := "task"
				if t.Kind == memory.KindReminder {
					what = "recurring reminder"
				}
				if t.UserID == turn.UserID {
					fmt.Fprintf(&b, "#%d (%s) “%s”, %s (%s), ", t.ID, what, t.Text, t.Schedule, t.TimeZone)
				} else { // another member's words are not given to the model as the user's
					fmt.Fprintf(&b, "#%d (%s, set by another member), %s (%s), ", t.ID, what, t.Schedule, t.TimeZone)
				}
				if t.Status == memory.TaskPause {
					b.WriteString("paused")
				} else {
					fmt.Fprintf(&b, "next %s", t.DueAt.In(env.Location).Format("2006-01-02 15:04 Monday"))
				}
				b.WriteString("\n")
			}
			return b.String(), nil
		},
	}
}

// newCancelTask deletes one of the user's scheduled tasks in this chat.
// After outside text it asks the user first: a page must not take away
// what the user scheduled.
func newCancelTask(env Env) agent.Tool {
	return agent.Tool{
		Name:        "cancel_task",
		Description: "Deletes a scheduled task or recurring reminder of this chat that the user set, by its #id (list_tasks shows them).",
		Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"id": map[string]any{"type": "integer", "description": "the task's #id"}},
			"required":   []string{"id"},
		},
		ConfirmAfterOutside: true,
		Describe: func(raw json.RawMessage) (string, error) {
			id, err := taskID(raw)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("cancel_task: delete your scheduled task #%d of this chat (/tasks shows which it is)", id), nil
		},
		Run: func(ctx context.Context, turn *agent.TurnInfo, raw json.RawMessage) (string, error) {
			id, err := taskID(raw)
			if err != nil {
				return "", err
			}
			t, err := env.Reminders.SetTaskStatus(ctx, turn.Chat.ID, id, turn.UserID, memory.TaskDelete, time.Time{})
			if errors.Is(err, memory.ErrNoSuchTask) {
				return "", fmt.Errorf("this chat has no scheduled task #%d that this user set; list_tasks shows them", id)
			}
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Task #%d (“%s”, %s) is deleted.", t.ID, t.Text, t.Schedule), nil
		},
	}
}

// taskID reads cancel_task's argument.
func taskID(raw json.RawMessage) (int64, error) {
	var args struct {
		ID int64 `json:"id"`
	}
	if err := agent.DecodeArgs(raw, &args); err != nil {
		return 0, err
	}
	return args.ID, nil
}
