package queue

import (
	"encoding/json"
	"fmt"
	"time"
)

// TaskRun is one run of a scheduled task, as it waits in the inbox: the
// payload of an update whose task_id is set (Update.Run). Only the
// scheduler writes such updates (memory.Store.RunDueTasks); nothing
// Telegram sends can become one.
type TaskRun struct {
	TaskID int64 `json:"task_id"`
	// From is who set the task, as the users table knew them; under
	// "from", as in a Telegram update, so that erasing a user's data
	// finds the runs of their tasks as their own updates.
	From   RunUser   `json:"from"`
	ChatID int64     `json:"chat_id"`
	Thread int64     `json:"thread,omitempty"`
	Prompt string    `json:"prompt"`
	DueAt  time.Time `json:"due_at"`
	// Late: it runs later than due, the bot having been down (or the
	// chat busy); the user is told when it was due.
	Late bool `json:"late,omitempty"`
}

// BotID is the bot whose updates are saved (AdoptUpdates): a run is
// stored as one of its updates.
func (s *Store) BotID() int64 { return s.botID.Load() }

// RunUser is the user a run is for.
type RunUser struct {
	ID           int64  `json:"id"`
	Username     string `json:"username,omitempty"`
	FirstName    string `json:"first_name,omitempty"`
	LastName     string `json:"last_name,omitempty"`
	LanguageCode string `json:"language_code,omitempty"`
}

// EncodeRun is the payload of run's update.
func EncodeRun(run TaskRun) ([]byte, error) {
	return json.Marshal(map[string]TaskRun{"task_run": run})
}

// decodeRun reads the payload of an update the scheduler enqueued.
func decodeRun(payload []byte) (*TaskRun, error) {
	var p struct {
		Run *TaskRun `json:"task_run"`
	}
	if err := json.Unmarshal(payload, &p); err != nil || p.Run == nil {
		return nil, fmt.Errorf("a scheduled run's payload is unreadable: %v", err)
	}
	return p.Run, nil
}
