package console

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

var (
	overviewSQL              = statement("overview")
	recentFailuresSQL        = statement("recentFailures")
	usageByDaySQL            = statement("usageByDay")
	usageByUserSQL           = statement("usageByUser")
	usageByModelSQL          = statement("usageByModel")
	usersSQL                 = statement("users")
	userSQL                  = statement("user")
	userFactsSQL             = statement("userFacts")
	userSummariesSQL         = statement("userSummaries")
	chatsSQL                 = statement("chats")
	conversationMessagesSQL  = statement("conversationMessages")
	conversationApprovalsSQL = statement("conversationApprovals")
	pendingApprovalsSQL      = statement("pendingApprovals")
	waitingRemindersSQL      = statement("waitingReminders")
	cancelReminderSQL        = statement("cancelReminder")
	cancelApprovalSQL        = statement("cancelApproval")
	userRemindersSQL         = statement("userReminders")
	privateConversationsSQL  = statement("privateConversations")
	messageTextSQL           = statement("messageText")
)

// Overview is the counts the overview page starts with.
type Overview struct {
	Users            int64 `json:"users"`
	Chats            int64 `json:"chats"`
	MessagesEstimate int64 `json:"messages_estimate"`
	UpdatesWaiting   int64 `json:"updates_waiting"`
	UpdatesFailed    int64 `json:"updates_failed"`
	TokensToday      int64 `json:"tokens_today"`
	CallsToday       int64 `json:"calls_today"`
	ApprovalsPending int64 `json:"approvals_pending"`
	Reminders        int64 `json:"reminders_waiting"`
	Tasks            int64 `json:"tasks_active"`
}

// Overview counts since dayStart (today's start in the bot's zone).
func (s *Store) Overview(ctx context.Context, dayStart time.Time) (Overview, error) {
	var o Overview
	err := s.pool.QueryRow(ctx, overviewSQL, dayStart).Scan(&o.Users, &o.Chats, &o.MessagesEstimate,
		&o.UpdatesWaiting, &o.UpdatesFailed, &o.TokensToday, &o.CallsToday, &o.ApprovalsPending, &o.Reminders, &o.Tasks)
	if err != nil {
		return Overview{}, fmt.Errorf("overview: %w", translate(err))
	}
	return o, nil
}

// Failure is an update that failed.
type Failure struct {
	UpdateID   int64     `json:"update_id"`
	ChatID     int64     `json:"chat_id"`
	State      string    `json:"state"`
	Error      string    `json:"error"`
	ReceivedAt time.Time `json:"received_at"`
	Attempts   int       `json:"attempts"`
	Crashes    int       `json:"crashes"`
}

// RecentFailures are the updates received since since that failed.
func (s *Store) RecentFailures(ctx context.Context, since time.Time) ([]Failure, error) {
	return collect(ctx, s, "recent failures", recentFailuresSQL, func(row pgx.CollectableRow) (Failure, error) {
		var f Failure
		err := row.Scan(&f.UpdateID, &f.ChatID, &f.State, &f.Error, &f.ReceivedAt, &f.Attempts, &f.Crashes)
		return f, err
	}, since)
}

// DayUsage is one day's model calls.
type DayUsage struct {
	Day    time.Time `json:"day"`
	Tokens int64     `json:"tokens"`
	Calls  int64     `json:"calls"`
}

// UsageByDay is the tokens and calls of each day since since, days
// counted in zone.
func (s *Store) UsageByDay(ctx context.Context, since time.Time, zone string) ([]DayUsage, error) {
	return collect(ctx, s, "usage by day", usageByDaySQL, func(row pgx.CollectableRow) (DayUsage, error) {
		var d DayUsage
		err := row.Scan(&d.Day, &d.Tokens, &d.Calls)
		return d, err
	}, since, zone)
}

// UserUsage is one user's model calls.
type UserUsage struct {
	UserID    int64  `json:"user_id"`
	Username  string `json:"username"`
	FirstName string `json:"first_name"`
	Tokens    int64  `json:"tokens"`
	Calls     int64  `json:"calls"`
}

// UsageByUser is each user's tokens and calls since since, most first.
func (s *Store) UsageByUser(ctx context.Context, since time.Time) ([]UserUsage, error) {
	return collect(ctx, s, "usage by user", usageByUserSQL, func(row pgx.CollectableRow) (UserUsage, error) {
		var u UserUsage
		err := row.Scan(&u.UserID, &u.Username, &u.FirstName, &u.Tokens, &u.Calls)
		return u, err
	}, since)
}

// ModelUsage is one model's calls for one purpose.
type ModelUsage struct {
	Model   string `json:"model"`
	Purpose string `json:"purpose"`
	Tokens  int64  `json:"tokens"`
	Calls   int64  `json:"calls"`
	Failed  int64  `json:"failed"`
}

// UsageByModel is each model's tokens and calls since since.
func (s *Store) UsageByModel(ctx context.Context, since time.Time) ([]ModelUsage, error) {
	return collect(ctx, s, "usage by model", usageByModelSQL, func(row pgx.CollectableRow) (ModelUsage, error) {
		var m ModelUsage
		err := row.Scan(&m.Model, &m.Purpose, &m.Tokens, &m.Calls, &m.Failed)
		return m, err
	}, since)
}

// User is a Telegram user the bot knows.
type User struct {
	ID           int64     `json:"id"`
	Username     string    `json:"username"`
	FirstName    string    `json:"first_name"`
	LastName     string    `json:"last_name"`
	LanguageCode string    `json:"language_code"`
	LastSeenAt   time.Time `json:"last_seen_at"`
	Facts        int64     `json:"facts"`
}

func scanUser(row pgx.CollectableRow) (User, error) {
	var u User
	err := row.Scan(&u.ID, &u.Username, &u.FirstName, &u.LastName, &u.LanguageCode, &u.LastSeenAt, &u.Facts)
	return u, err
}

// Users are the users the bot knows, the most recently seen first.
func (s *Store) Users(ctx context.Context) ([]User, error) {
	return collect(ctx, s, "users", usersSQL, scanUser)
}

// ErrNotFound is a user, conversation or row that is not there.
var ErrNotFound = errors.New("not found")

// User is one user; ErrNotFound when the bot does not know them.
func (s *Store) User(ctx context.Context, id int64) (User, error) {
	users, err := collect(ctx, s, "user", userSQL, scanUser, id)
	if err != nil {
		return User{}, err
	}
	if len(users) == 0 {
		return User{}, ErrNotFound
	}
	return users[0], nil
}

// Fact is a long-term fact with where it came from and what replaced it.
type Fact struct {
	ID           int64      `json:"id"`
	Content      string     `json:"content"`
	Origin       string     `json:"origin"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
	SupersededBy *int64     `json:"superseded_by,omitempty"`
	ValidUntil   *time.Time `json:"valid_until,omitempty"`
	Source       *Message   `json:"source,omitempty"`
}

// Current tells whether nothing replaced the fact.
func (f Fact) Current() bool { return f.SupersededBy == nil }

// UserFacts are the user's facts, current ones first.
func (s *Store) UserFacts(ctx context.Context, userID int64) ([]Fact, error) {
	return collect(ctx, s, "user facts", userFactsSQL, func(row pgx.CollectableRow) (Fact, error) {
		var f Fact
		var src Message
		var srcAt *time.Time
		err := row.Scan(&f.ID, &f.Content, &f.Origin, &f.CreatedAt, &f.UpdatedAt, &f.SupersededBy, &f.ValidUntil,
			&src.ID, &src.Content, &src.Role, &srcAt, &src.Forgotten)
		if src.ID != 0 && srcAt != nil {
			src.CreatedAt = *srcAt
			f.Source = &src
		}
		return f, err
	}, userID)
}

// Summary is a summary of what left a conversation's window.
type Summary struct {
	ID        int64     `json:"id"`
	ChatID    int64     `json:"chat_id"`
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"created_at"`
}

// UserSummaries are the summaries of the user's current conversations.
func (s *Store) UserSummaries(ctx context.Context, userID int64) ([]Summary, error) {
	return collect(ctx, s, "user summaries", userSummariesSQL, func(row pgx.CollectableRow) (Summary, error) {
		var v Summary
		err := row.Scan(&v.ID, &v.ChatID, &v.Content, &v.CreatedAt)
		return v, err
	}, userID)
}

// Chat is a chat's current conversation.
type Chat struct {
	ConversationID string    `json:"conversation_id"`
	ChatID         int64     `json:"chat_id"`
	Thread         int64     `json:"thread,omitempty"`
	UserID         int64     `json:"user_id"`
	Username       string    `json:"username"`
	FirstName      string    `json:"first_name"`
	CreatedAt      time.Time `json:"created_at"`
	LastAt         time.Time `json:"last_at"`
}

// Chats are the current conversations, the most recently active first.
func (s *Store) Chats(ctx context.Context) ([]Chat, error) {
	return collect(ctx, s, "chats", chatsSQL, func(row pgx.CollectableRow) (Chat, error) {
		var c Chat
		err := row.Scan(&c.ConversationID, &c.ChatID, &c.Thread, &c.UserID, &c.Username, &c.FirstName, &c.CreatedAt, &c.LastAt)
		return c, err
	})
}

// Message is a row of a conversation as the page shows it: its texts
// cut past 2,000 characters, Length the content's whole length.
type Message struct {
	ID        int64     `json:"id"`
	Role      string    `json:"role"`
	Content   string    `json:"content"`
	Length    int       `json:"length,omitempty"`
	ToolCalls string    `json:"tool_calls,omitempty"`
	ToolName  string    `json:"tool_name,omitempty"`
	Metadata  string    `json:"metadata,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	Forgotten bool      `json:"forgotten"`
	// Calls are an assistant row's tool calls (the first 20), each's
	// arguments cut as the texts are.
	Calls []Call `json:"calls,omitempty"`
	// From is where a user row came from, as its metadata says.
	From *From `json:"from,omitempty"`
}

// Call is a tool call of an assistant row.
type Call struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// From is what a user row's metadata says of where it came from.
type From struct {
	Group     bool   `json:"group"`     // written in a group chat
	Forwarded bool   `json:"forwarded"` // Telegram marked it forwarded
	ViaBot    string `json:"via_bot,omitempty"`
	Scheduled bool   `json:"scheduled"`       // a scheduled task's run
	Media     string `json:"media,omitempty"` // the kind of its first file
}

// ConversationMessages are the conversation's newest limit rows, oldest first.
func (s *Store) ConversationMessages(ctx context.Context, conversationID string, limit int) ([]Message, error) {
	return collect(ctx, s, "conversation messages", conversationMessagesSQL, func(row pgx.CollectableRow) (Message, error) {
		var m Message
		var from From
		var group *bool
		err := row.Scan(&m.ID, &m.Role, &m.Content, &m.Length, &m.ToolCalls, &m.ToolName, &m.Metadata, &m.CreatedAt, &m.Forgotten,
			&m.Calls, &from.Media, &from.Forwarded, &from.Scheduled, &from.ViaBot, &group)
		if m.Role == "user" {
			from.Group = group != nil && *group
			m.From = &from
		}
		return m, err
	}, conversationID, limit)
}

// Approval is a tool call that asked a person first.
type Approval struct {
	ID                 int64      `json:"id"`
	Subject            string     `json:"subject"`
	Status             string     `json:"status,omitempty"`
	UserID             int64      `json:"user_id,omitempty"`
	ChatID             int64      `json:"chat_id,omitempty"`
	CreatedAt          time.Time  `json:"created_at"`
	DecisionAt         *time.Time `json:"decision_at,omitempty"`
	DecidedBy          int64      `json:"decided_by,omitempty"`
	AssistantMessageID int64      `json:"assistant_message_id,omitempty"`
	// RequestID is the id of the tool call it is of; DeciderName and
	// DeciderUsername name who decided, as last seen.
	RequestID       string `json:"request_id,omitempty"`
	DeciderName     string `json:"decider_name,omitempty"`
	DeciderUsername string `json:"decider_username,omitempty"`
}

// ConversationApprovals are the approvals asked in a conversation.
func (s *Store) ConversationApprovals(ctx context.Context, conversationID string) ([]Approval, error) {
	return collect(ctx, s, "conversation approvals", conversationApprovalsSQL, func(row pgx.CollectableRow) (Approval, error) {
		var a Approval
		err := row.Scan(&a.ID, &a.Subject, &a.Status, &a.CreatedAt, &a.DecisionAt, &a.DecidedBy, &a.AssistantMessageID,
			&a.RequestID, &a.DeciderName, &a.DeciderUsername)
		return a, err
	}, conversationID)
}

// PendingApprovals are the approvals that wait for a press, oldest first.
func (s *Store) PendingApprovals(ctx context.Context) ([]Approval, error) {
	return collect(ctx, s, "pending approvals", pendingApprovalsSQL, func(row pgx.CollectableRow) (Approval, error) {
		var a Approval
		err := row.Scan(&a.ID, &a.Subject, &a.UserID, &a.ChatID, &a.CreatedAt)
		return a, err
	})
}

// Waiting is a reminder or scheduled task that still waits to run.
type Waiting struct {
	ID       int64     `json:"id"`
	Kind     string    `json:"kind"`
	UserID   int64     `json:"user_id"`
	ChatID   int64     `json:"chat_id"`
	Text     string    `json:"text"`
	DueAt    time.Time `json:"due_at"`
	Schedule string    `json:"schedule,omitempty"`
	Status   string    `json:"status"`
}

func scanWaiting(row pgx.CollectableRow) (Waiting, error) {
	var w Waiting
	err := row.Scan(&w.ID, &w.Kind, &w.UserID, &w.ChatID, &w.Text, &w.DueAt, &w.Schedule, &w.Status)
	return w, err
}

// WaitingReminders are the reminders and tasks that wait, soonest first.
func (s *Store) WaitingReminders(ctx context.Context) ([]Waiting, error) {
	return collect(ctx, s, "waiting reminders", waitingRemindersSQL, scanWaiting)
}

// UserReminders are the reminders and tasks userID set that still wait.
func (s *Store) UserReminders(ctx context.Context, userID int64) ([]Waiting, error) {
	return collect(ctx, s, "user reminders", userRemindersSQL, scanWaiting, userID)
}

// CancelReminder cancels a reminder or task that still waits, userID's
// own unless userID is 0, and tells its chat; ErrNotFound when none such
// waits.
func (s *Store) CancelReminder(ctx context.Context, id, userID int64) (chatID int64, err error) {
	err = s.pool.QueryRow(ctx, cancelReminderSQL, id, userID).Scan(&chatID)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("cancel reminder: %w", translate(err))
	}
	return chatID, nil
}

// CancelApproval cancels an approval that waits for a press and tells its
// chat; ErrNotFound when none such waits.
func (s *Store) CancelApproval(ctx context.Context, id int64) (chatID int64, err error) {
	err = s.pool.QueryRow(ctx, cancelApprovalSQL, id).Scan(&chatID)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("cancel approval: %w", translate(err))
	}
	return chatID, nil
}

// PrivateConversations are the ids of userID's current conversations in
// their private chat with the bot.
func (s *Store) PrivateConversations(ctx context.Context, userID int64) ([]string, error) {
	return collect(ctx, s, "private conversations", privateConversationsSQL, pgx.RowTo[string], userID)
}

// MessageText is one message's whole text; ErrNotFound when there is none.
func (s *Store) MessageText(ctx context.Context, id int64) (string, error) {
	var text string
	err := s.pool.QueryRow(ctx, messageTextSQL, id).Scan(&text)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("message text: %w", translate(err))
	}
	return text, nil
}
