// Package tools holds the built-in tools the model may call: a
// calculator, the time, fetch_url, web_search, the long-term facts
// (remember, forget), search_history, set_reminder and generate_image. Each tool is one
// file; Builtin configures them all from an Env. The agent runs them
// through its Registry and knows none of them by name.
package tools

import (
	"context"
	"errors"
	"time"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/memory"
)

// Facts is what remember and forget change (memory.LongTerm).
type Facts interface {
	Remember(ctx context.Context, userID, id int64, content string, sourceMessageID int64) (*memory.Fact, error)
	ForgetFact(ctx context.Context, userID, id int64) (*memory.Fact, error)
}

// History is what search_history searches: the messages (memory.Index).
type History interface {
	SearchMessages(ctx context.Context, q memory.Search) ([]memory.Snippet, error)
}

// Reminders is what set_reminder, schedule_task and the task tools keep
// (memory.Reminders).
type Reminders interface {
	AddReminder(ctx context.Context, r memory.Reminder) (int64, error)
	AddTask(ctx context.Context, r memory.Reminder) (int64, error)
	ChatTasks(ctx context.Context, chatID int64) ([]memory.Reminder, error)
	SetTaskStatus(ctx context.Context, chatID, id, userID int64, status string, next time.Time) (*memory.Reminder, error)
}

// Env is what built-in tools may be configured from.
type Env struct {
	Location  *time.Location
	Now       func() time.Time
	Facts     Facts     // for remember and forget
	History   History   // for search_history
	Reminders Reminders // for the tools that remind and schedule
	// ReminderAdded, when set, is told about each new reminder or task, so
	// the scheduler can wake up for it.
	ReminderAdded func(due time.Time)
	// ReminderMinLead is how far ahead a reminder must be at least: sooner
	// it is no reminder, and a stream of them would flood the chat.
	ReminderMinLead time.Duration
	// MinTaskInterval is how close two runs of a scheduled task may be at
	// least (MIN_TASK_INTERVAL), so that a task cannot flood the chat or
	// spend the budgets.
	MinTaskInterval time.Duration
	// FetchAllowPrivate lets fetch_url reach loopback and private addresses
	// (for tests; never in production).
	FetchAllowPrivate bool
	// Embedder, when set, makes search_history semantic too (EMBEDDINGS_MODEL).
	Embedder agent.Embedder
	// WebSearch, when set, is the provider web_search asks; without one the
	// tool is not offered.
	WebSearch WebSearcher
	// Images, when on (IMAGE_MODEL), draws generate_image's pictures;
	// otherwise the tool is not offered.
	Images Painter
}

// DefaultEnv is the tools' settings' defaults: a reminder at least a
// minute ahead (REMINDER_MIN_LEAD), a task's runs at least an hour apart
// (MIN_TASK_INTERVAL), fetch_url kept off private addresses
// (FETCH_ALLOW_PRIVATE).
func DefaultEnv() Env {
	return Env{ReminderMinLead: time.Minute, MinTaskInterval: time.Hour}
}

// Builtin returns every built-in tool, configured from env.
func Builtin(env Env) []agent.Tool {
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.Location == nil {
		env.Location = time.UTC
	}
	if env.MinTaskInterval <= 0 {
		env.MinTaskInterval = DefaultEnv().MinTaskInterval
	}
	// Every built-in tool, one file each: adding a tool is adding its file
	// and its line here.
	tools := []agent.Tool{
		newCalculator(env),
		newCurrentTime(env),
		newFetchURL(env),
		newForget(env),
		newRemember(env),
		newSearchHistory(env),
		newSetReminder(env),
		newScheduleTask(env),
		newListTasks(env),
		newCancelTask(env),
	}
	if env.WebSearch != nil {
		tools = append(tools, newWebSearch(env))
	}
	if env.Images != nil && env.Images.On() {
		tools = append(tools, newGenerateImage(env))
	}
	return tools
}

// Names returns the names of the built-in tools, those offered only
// when configured included.
func Names() []string {
	var names []string
	for _, t := range Builtin(Env{}) {
		names = append(names, t.Name)
	}
	return append(names, webSearchName, generateImageName)
}

// errFactsPrivate is the answer of the fact tools in a group.
var errFactsPrivate = errors.New("long-term facts are kept only in the user's private chat with the bot, " +
	"never in a group where others read along; ask the user to tell you there")

func semanticNote(env Env) string {
	if env.Embedder == nil {
		return ""
	}
	return "; it also finds messages of like meaning in other words"
}
