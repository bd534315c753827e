package userdata

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/pg"
)

// Usage is what the limits look at before a message is admitted.
type Usage struct {
	TokensToday int64 // tokens of the user's model calls since the day began
	Received    int   // messages of the user admitted since the window began
	RateNotices int   // "too fast" notices the user got since the window began
}

// RecentUsage reads the user's usage since dayStart (tokens) and since
// windowStart (messages), leaving out updateID, in one round trip.
func (s *Store) RecentUsage(ctx context.Context, userID, updateID int64, dayStart, windowStart time.Time) (Usage, error) {
	var u Usage
	batch := &pgx.Batch{}
	queueRecentUsage(batch, recentUsageParams{UserID: userID, DayStart: dayStart, WindowStart: windowStart, UpdateID: updateID}, &u)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return u, fmt.Errorf("recent usage: %w", translate(err))
	}
	return u, nil
}

// AccessAndUsage is memory.Access.AccessOf of userID in chatID and
// RecentUsage, together in one round trip: what the gate asks of a sender
// in owner mode when limits count.
func (s *Store) AccessAndUsage(ctx context.Context, userID, chatID, updateID int64, dayStart, windowStart time.Time) (memory.AccessState, Usage, error) {
	var st memory.AccessState
	var u Usage
	batch := &pgx.Batch{}
	memory.QueueAccessOf(batch, userID, chatID, &st)
	queueRecentUsage(batch, recentUsageParams{UserID: userID, DayStart: dayStart, WindowStart: windowStart, UpdateID: updateID}, &u)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return st, u, fmt.Errorf("access and usage of user %d in chat %d: %w", userID, chatID, translate(err))
	}
	return st, u, nil
}

// queueRecentUsage queues RecentUsage's read into u.
func queueRecentUsage(batch *pgx.Batch, p recentUsageParams, u *Usage) {
	batch.Queue(recentUsageSQL, pg.Named(p)).QueryRow(func(row pgx.Row) error {
		return row.Scan(&u.TokensToday, &u.Received, &u.RateNotices)
	})
}

// UserStats sums up one user for /usage, /user and the admin command line.
type UserStats struct {
	User           memory.User
	Known          bool // the user has a users row
	FirstSeen      time.Time
	LastSeen       time.Time
	Conversations  int
	StoredMessages int // rows in their conversations now (/new deletes them)
	MessagesToday  int // messages received since dayStart
	MessagesMonth  int // since monthStart
	TokensToday    int64
	TokensMonth    int64
	TokensTotal    int64
	ModelCalls     int // in all
	Refusals       int // days they were refused
}

// UserByUsername finds the user known by a Telegram username (without
// the @, in any case); when the name changed hands, the one seen last.
// memory.ErrNotFound when no user has it.
func (s *Store) UserByUsername(ctx context.Context, username string) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, userByUsernameSQL, username).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("user by username: %w", translate(err))
	}
	return id, nil
}

// UserStats reads the user's summary; Known is false for a user the bot
// has never served.
func (s *Store) UserStats(ctx context.Context, userID int64, dayStart, monthStart time.Time) (*UserStats, error) {
	st := &UserStats{User: memory.User{TelegramUserID: userID}}
	err := s.pool.QueryRow(ctx, userStatsSQL, userID, dayStart, monthStart).Scan(
		&st.Known, &st.User.Username, &st.User.FirstName, &st.User.LastName, &st.User.LanguageCode,
		&st.FirstSeen, &st.LastSeen, &st.Conversations, &st.StoredMessages,
		&st.MessagesToday, &st.MessagesMonth, &st.TokensToday, &st.TokensMonth, &st.TokensTotal,
		&st.ModelCalls, &st.Refusals)
	if err != nil {
		return nil, fmt.Errorf("user stats: %w", translate(err))
	}
	return st, nil
}

// Stats sums up the whole bot for /stats and `membot admin stats`.
type Stats struct {
	Users           int
	ActiveToday     int // users with a message received since dayStart
	MessagesToday   int
	StoredMessages  int // rows in the messages table
	TokensToday     int64
	ModelCallsToday int
	LLMErrorsToday  int
	ToolCallsToday  int
	RefusedToday    int // messages refused for access or limits
	InboxUnfinished int
	InboxFailed     int // updates given up with an error
}

// Stats reads the bot's totals; "today" starts at dayStart.
func (s *Store) Stats(ctx context.Context, dayStart time.Time) (*Stats, error) {
	st := &Stats{}
	err := s.pool.QueryRow(ctx, statsSQL, dayStart).Scan(&st.Users, &st.ActiveToday, &st.MessagesToday,
		&st.StoredMessages, &st.TokensToday, &st.ModelCallsToday, &st.LLMErrorsToday, &st.ToolCallsToday,
		&st.RefusedToday, &st.InboxUnfinished, &st.InboxFailed)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", translate(err))
	}
	return st, nil
}

// recentUsageParams are the arguments of recentUsage.
type recentUsageParams struct {
	UserID      int64     `db:"telegram_user_id"`
	DayStart    time.Time `db:"day_start"`
	WindowStart time.Time `db:"window_start"`
	UpdateID    int64     `db:"update_id"`
}

// The statements of this file, whole in sql/usage.sql.
var (
	recentUsageSQL    = statement("recentUsage")
	userStatsSQL      = statement("userStats")
	statsSQL          = statement("stats")
	userByUsernameSQL = statement("userByUsername")
)
