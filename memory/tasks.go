package memory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/memory/pg"
	"github.com/membot/membot/memory/queue"
)

// The bounds on scheduled rows (tasks and recurring reminders), so that a
// model, or a page it read, cannot fill the schedule: per user and per
// chat, besides MaxRemindersPerHour new rows of reminders per chat an hour.
const (
	MaxTasksPerUser = 20
	MaxTasksPerChat = 10
)

// ErrTooManyTasks is returned when a task would pass those bounds.
var ErrTooManyTasks = errors.New("too many scheduled tasks")

// addTaskParams are the arguments of addTask: the row, and the bounds it
// may not pass.
type addTaskParams struct {
	UserID          int64     `db:"telegram_user_id"`
	ChatID          int64     `db:"chat_id"`
	Text            string    `db:"text"`
	DueAt           time.Time `db:"due_at"`
	SourceMessageID int64     `db:"source_message_id"`
	ThreadID        int64     `db:"message_thread_id"`
	Kind            string    `db:"kind"`
	Schedule        string    `db:"schedule"`
	TimeZone        string    `db:"time_zone"`
	MaxPerUser      int       `db:"max_per_user"`
	MaxPerChat      int       `db:"max_per_chat"`
	MaxPerHour      int       `db:"max_per_hour"`
}

// AddTask stores a scheduled row (r.Schedule set; r.DueAt its first
// occurrence) and returns its id.
func (s Reminders) AddTask(ctx context.Context, r Reminder) (int64, error) {
	if r.Schedule == "" {
		return 0, errors.New("add task: no schedule")
	}
	if r.Kind == "" {
		r.Kind = KindTask
	}
	var id int64
	// The user's lock first: the count of their tasks is taken by the
	// statement's snapshot, and adds from several chats at once must see
	// each other's. (One chat's updates are handled one at a time.)
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockUserBoundsSQL, r.UserID); err != nil {
			return err
		}
		return tx.QueryRow(ctx, addTaskSQL, pg.Named(addTaskParams{
			UserID: r.UserID, ChatID: r.ChatID, Text: cleanText(r.Text), DueAt: r.DueAt, SourceMessageID: r.SourceMessageID,
			ThreadID: r.ThreadID, Kind: r.Kind, Schedule: r.Schedule, TimeZone: r.TimeZone,
			MaxPerUser: MaxTasksPerUser, MaxPerChat: MaxTasksPerChat, MaxPerHour: MaxRemindersPerHour,
		})).Scan(&id)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("add task: %w (at most %d for a user, %d in a chat, and %d reminders or tasks set in a chat an hour)",
			ErrTooManyTasks, MaxTasksPerUser, MaxTasksPerChat, MaxRemindersPerHour)
	}
	if err != nil {
		return 0, fmt.Errorf("add task: %w", translate(err))
	}
	return id, nil
}

// DropUserTasks cancels every scheduled row of userID not yet done, in
// every chat, and says how many: a user the bot no longer serves loses
// their tasks.
func (s Reminders) DropUserTasks(ctx context.Context, userID int64) (int64, error) {
	tag, err := s.pool.Exec(ctx, dropUserTasksSQL, userID)
	if err != nil {
		return 0, fmt.Errorf("drop user tasks: %w", translate(err))
	}
	return tag.RowsAffected(), nil
}

// RunPlan says, for a due task, when it runs next (zero: never again) and
// whether this run is late.
type RunPlan func(task Reminder) (next time.Time, late bool)

// RunDueTasks enqueues the runs of up to limit due tasks and returns them.
// Each run enters the inbox (an update with the task's id, see queue.TaskRun)
// and its task moves on to the next occurrence plan gives, in one
// transaction: a run is enqueued once, whatever dies when, and the
// occurrences missed while the bot was down come to that one run.
func (s Reminders) RunDueTasks(ctx context.Context, limit int, plan RunPlan) ([]queue.TaskRun, error) {
	var runs []queue.TaskRun
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		runs = nil
		rows, err := tx.Query(ctx, dueTasksSQL, limit)
		if err != nil {
			return err
		}
		type due struct {
			Reminder
			Username  string `db:"username"`
			FirstName string `db:"first_name"`
			LastName  string `db:"last_name"`
		}
		tasks, err := pgx.CollectRows(rows, pgx.RowToStructByName[due])
		if err != nil {
			return err
		}
		batch := &pgx.Batch{}
		for _, t := range tasks {
			next, late := plan(t.Reminder)
			run := queue.TaskRun{TaskID: t.ID, ChatID: t.ChatID, Thread: t.ThreadID, Prompt: t.Text, DueAt: t.DueAt, Late: late,
				From: queue.RunUser{ID: t.UserID, Username: t.Username, FirstName: t.FirstName, LastName: t.LastName, LanguageCode: t.LanguageCode}}
			payload, err := queue.EncodeRun(run)
			if err != nil {
				return err
			}
			var nextAt *time.Time
			if !next.IsZero() {
				nextAt = &next
			}
			batch.Queue(enqueueRunSQL, pg.Named(enqueueRunParams{
				BotID: s.inbox.BotID(), TaskID: t.ID, ChatID: t.ChatID, Payload: string(payload),
			}))
			batch.Queue(advanceTaskSQL, t.ID, nextAt, late)
			runs = append(runs, run)
		}
		if batch.Len() == 0 {
			return nil
		}
		return tx.SendBatch(ctx, batch).Close()
	})
	if err != nil {
		return nil, fmt.Errorf("run due tasks: %w", translate(err))
	}
	return runs, nil
}

// ChatTasks returns the chat's scheduled rows that still run (paused ones
// too), oldest first.
func (s Reminders) ChatTasks(ctx context.Context, chatID int64) ([]Reminder, error) {
	rows, err := s.pool.Query(ctx, chatTasksSQL, chatID)
	if err != nil {
		return nil, fmt.Errorf("chat tasks: %w", translate(err))
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[Reminder])
	if err != nil {
		return nil, fmt.Errorf("chat tasks: %w", translate(err))
	}
	return list, nil
}

// TaskStopped tells whether task id was paused or deleted: a run of it
// queued before that is not answered.
func (s Reminders) TaskStopped(ctx context.Context, id int64) (bool, error) {
	var stopped bool
	if err := s.pool.QueryRow(ctx, taskStoppedSQL, id).Scan(&stopped); err != nil {
		return false, fmt.Errorf("task stopped: %w", translate(err))
	}
	return stopped, nil
}

// What SetTaskStatus can do to a task.
const (
	TaskPause  = "paused"
	TaskResume = "pending"
	TaskDelete = "cancelled"
)

// ErrNoSuchTask is returned by SetTaskStatus when the chat has no such
// task that runs still (or the user did not set it).
var ErrNoSuchTask = errors.New("no such task")

// SetTaskStatus pauses, resumes (next: when it runs next) or deletes task
// id of the chat. With a userID, only a task that user set is changed.
func (s Reminders) SetTaskStatus(ctx context.Context, chatID, id, userID int64, status string, next time.Time) (*Reminder, error) {
	var nextAt *time.Time
	if status == TaskResume {
		nextAt = &next
	}
	rows, err := s.pool.Query(ctx, setTaskStatusSQL, pg.Named(setTaskStatusParams{
		ChatID: chatID, ID: id, UserID: userID, Status: status, DueAt: nextAt,
	}))
	if err != nil {
		return nil, fmt.Errorf("set task status: %w", translate(err))
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Reminder])
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNoSuchTask
	}
	if err != nil {
		return nil, fmt.Errorf("set task status: %w", translate(err))
	}
	return &r, nil
}

// enqueueRunParams are the arguments of enqueueRun.
type enqueueRunParams struct {
	BotID   int64  `db:"bot_id"`
	TaskID  int64  `db:"task_id"`
	ChatID  int64  `db:"chat_id"`
	Payload string `db:"payload"`
}

// setTaskStatusParams are the arguments of setTaskStatus.
type setTaskStatusParams struct {
	ChatID int64      `db:"chat_id"`
	ID     int64      `db:"id"`
	UserID int64      `db:"telegram_user_id"`
	Status string     `db:"status"`
	DueAt  *time.Time `db:"due_at"`
}

// The statements of this file, whole in sql/tasks.sql.
var (
	addTaskSQL       = statement("addTask")
	dropUserTasksSQL = statement("dropUserTasks")
	dueTasksSQL      = statement("dueTasks")
	enqueueRunSQL    = statement("enqueueRun")
	advanceTaskSQL   = statement("advanceTask")
	chatTasksSQL     = statement("chatTasks")
	taskStoppedSQL   = statement("taskStopped")
	setTaskStatusSQL = statement("setTaskStatus")
)
