package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/internal/schedule"
	"github.com/membot/membot/internal/visible"
	"github.com/membot/membot/memory"
)

// maxTaskPrompt bounds a task's prompt, as maxReminderText a reminder's.
const maxTaskPrompt = 1000

// gapChecked is how many occurrences the minimum interval is checked over:
// a cron expression's gaps need not be even ("0 8,9 * * *").
const gapChecked = 500

// taskArgs are schedule_task's arguments.
type taskArgs struct {
	Prompt   string `json:"prompt"`
	Schedule string `json:"schedule"`
	Reminder bool   `json:"reminder"`
}

// newScheduleTask stores a recurring task: at each occurrence of its
// schedule the bot runs its prompt as a turn of its own in this chat (or,
// as a reminder, sends it as it is). After outside text it waits for the
// user's confirmation: a page must not plant a recurring instruction.
func newScheduleTask(env Env) agent.Tool {
	zone := env.Location.String()
	return agent.Tool{
		Name: "schedule_task",
		Description: "Schedules a recurring task in this chat: at each time of the schedule the bot runs the prompt as if the user had " +
			"sent it (with tools), and sends the answer here — for \"every weekday at 8 tell me the weather\", the prompt is " +
			"\"Tell me today's weather in Kazan\". With \"reminder\": true the prompt is sent as it is, as a recurring reminder, " +
			"without running it. The schedule is read in " + zone + ": five cron fields (\"0 8 * * 1-5\") or " + schedule.Words +
			"; turn any other phrase into cron fields yourself (\"each Sunday evening\" is \"0 19 * * 0\"). Runs must be at least " +
			env.MinTaskInterval.String() + " apart. list_tasks shows the chat's tasks and cancel_task deletes one; the user also sees, pauses and deletes them with /tasks. For a one-time reminder use set_reminder.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"prompt":   map[string]any{"type": "string", "description": "what the bot is to do at each run, as the user would ask it"},
				"schedule": map[string]any{"type": "string", "description": "five cron fields, or " + schedule.Words},
				"reminder": map[string]any{"type": "boolean", "description": "send the prompt as a reminder instead of running it"},
			},
			"required": []string{"prompt", "schedule"},
		},
		ConfirmAfterOutside: true,
		Describe: func(raw json.RawMessage) (string, error) {
			args, sch, err := readTask(env, raw)
			if err != nil {
				return "", err
			}
			what := "run"
			if args.Reminder {
				what = "send as a reminder"
			}
			return fmt.Sprintf("schedule_task: %s “%s” %s (%s, %s), first on %s", what, visible.Escaped(args.Prompt), visible.Escaped(args.Schedule), sch.Cron, zone,
				sch.Next(env.Now()).Format("2006-01-02 15:04")), nil
		},
		Run: func(ctx context.Context, turn *agent.TurnInfo, raw json.RawMessage) (string, error) {
			args, sch, err := readTask(env, raw)
			if err != nil {
				return "", err
			}
			kind := memory.KindTask
			if args.Reminder {
				kind = memory.KindReminder
			}
			first := sch.Next(env.Now())
			id, err := env.Reminders.AddTask(ctx, memory.Reminder{UserID: turn.UserID, ChatID: turn.Chat.ID, ThreadID: turn.Chat.Thread,
				Text: args.Prompt, DueAt: first, SourceMessageID: turn.UserMessageID, Kind: kind, Schedule: sch.Cron, TimeZone: zone})
			if errors.Is(err, memory.ErrTooManyTasks) {
				return "", fmt.Errorf("no more scheduled tasks now: at most %d for a user and %d in a chat, and %d reminders or tasks "+
					"set in a chat an hour; the user can see and delete theirs with /tasks",
					memory.MaxTasksPerUser, memory.MaxTasksPerChat, memory.MaxRemindersPerHour)
			}
			if err != nil {
				return "", err
			}
			if env.ReminderAdded != nil {
				env.ReminderAdded(first)
			}
			local := first.In(env.Location)
			return fmt.Sprintf("Task #%d scheduled (%s, %s); it first runs %s, %s. The user manages it with /tasks.", id, sch.Cron, zone,
				local.Format("2006-01-02 15:04"), local.Weekday()), nil
		},
	}
}

// readTask decodes and checks schedule_task's arguments: a prompt within
// bounds and a schedule whose runs are at least MinTaskInterval apart.
func readTask(env Env, raw json.RawMessage) (taskArgs, schedule.Schedule, error) {
	var args taskArgs
	if err := agent.DecodeArgs(raw, &args); err != nil {
		return args, schedule.Schedule{}, err
	}
	args.Prompt = strings.TrimSpace(args.Prompt)
	switch {
	case args.Prompt == "":
		return args, schedule.Schedule{}, errors.New("the task's prompt is empty")
	case utf8.RuneCountInString(args.Prompt) > maxTaskPrompt:
		return args, schedule.Schedule{}, fmt.Errorf("the prompt is longer than %d characters", maxTaskPrompt)
	}
	sch, err := schedule.Parse(args.Schedule, env.Location)
	if err != nil {
		return args, sch, err
	}
	if gap := sch.Gap(env.Now(), gapChecked); gap < env.MinTaskInterval {
		return args, sch, fmt.Errorf("runs of %q would be %v apart; they must be at least %v apart", args.Schedule, gap, env.MinTaskInterval)
	}
	return args, sch, nil
}
