package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/testing/telegramfake"
)

// waitIdle waits until every update after firstUpdate is marked done: a
// reply reaches Telegram a moment before its update is.
func waitIdle(ctx context.Context, pool *pgxpool.Pool, firstUpdate int64) error {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var open int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM updates WHERE update_id > $1 AND state <> 'done'`, firstUpdate).Scan(&open)
		if err != nil {
			return fmt.Errorf("count unfinished updates: %w", err)
		}
		if open == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d updates still unfinished after 2 minutes", open)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// lastReply is when the last message reached the fake Telegram.
func lastReply(sent []telegramfake.Sent) time.Time {
	var last time.Time
	for _, s := range sent {
		if s.At.After(last) {
			last = s.At
		}
	}
	return last
}

// messagesSent counts the messages sent, not their edits.
func messagesSent(sent []telegramfake.Sent) int {
	n := 0
	for _, s := range sent {
		if s.Method != "editMessageText" {
			n++
		}
	}
	return n
}

// check runs after the bot has stopped, so that nothing more can arrive: no
// chat got a reply beyond its messages' (drive checked the ones it waited
// for), and the database holds one answered, delivered turn per message.
func check(ctx context.Context, pool *pgxpool.Pool, chats []*chatLoad, firstUpdate int64, replies int, strays int64) []string {
	var problems []string
	messages := 0
	for _, c := range chats {
		messages += c.sent
		if extra := len(c.replies); extra > 0 {
			problems = append(problems, fmt.Sprintf("chat %d: %d replies more than messages", c.user.ID, extra))
		}
	}
	if strays > 0 {
		problems = append(problems, fmt.Sprintf("%d replies to chats that wrote nothing, or far more than they wrote", strays))
	}
	if replies != messages {
		problems = append(problems, fmt.Sprintf("%d replies sent for %d messages", replies, messages))
	}
	var open, users, answers int
	err := pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM updates WHERE update_id > $1 AND state <> 'done'),
		(SELECT count(*) FROM messages WHERE update_id > $1 AND role = 'user'),
		(SELECT count(*) FROM messages WHERE update_id > $1 AND role = 'assistant' AND telegram_message_id IS NOT NULL)`,
		firstUpdate).Scan(&open, &users, &answers)
	if err != nil {
		return append(problems, fmt.Sprintf("check the database: %v", err))
	}
	if open != 0 || users != messages || answers != messages {
		problems = append(problems, fmt.Sprintf("database: %d updates unfinished, %d user rows and %d delivered answers for %d messages",
			open, users, answers, messages))
	}
	return problems
}

// since is the work done between two reports; the peak RSS is the later one.
func (s botStats) since(before botStats) botStats {
	d := botStats{
		Statements: s.Statements - before.Statements,
		RoundTrips: s.RoundTrips - before.RoundTrips,
		CPU:        s.CPU - before.CPU,
		MaxRSS:     s.MaxRSS,
		Calls:      map[string]int64{},
	}
	for k, v := range s.Calls {
		if n := v - before.Calls[k]; n > 0 {
			d.Calls[k] = n
		}
	}
	return d
}

var errProblems = errors.New("the replies were not all correct")
