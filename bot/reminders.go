package bot

import (
	"context"

	"github.com/membot/membot/bot/remind"
	"github.com/membot/membot/bot/tasks"
)

// ReminderStore is what /reminders, /cancel_reminder and /tasks need.
type ReminderStore interface {
	remind.Store
	tasks.Store
	// TaskStopped tells whether a task was paused or deleted since its run
	// was queued (scheduled.go).
	TaskStopped(ctx context.Context, id int64) (bool, error)
	// DropUserTasks deletes the tasks of a user no longer served (access.go).
	DropUserTasks(ctx context.Context, userID int64) (int64, error)
}
