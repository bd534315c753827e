// Package command is what the bot's commands and buttons see of the
// update they answer, and how they answer it. bot routes an update to a
// command (its table is bot/routes.go) and hands it a Call; the command's
// own package does the rest, so a command lives with its logic and its
// tests need no Telegram: a Call is a value whose answers are functions.
package command

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/memory"
)

// Call is one command, or one press of a button, being answered.
type Call struct {
	User memory.User // who wrote, or pressed
	// Chat is where it came from, in its topic: the conversation the call
	// reads and changes, and where answers go.
	Chat     memory.Chat
	Private  bool  // a private chat (a group otherwise)
	UpdateID int64 // the update's id: events and turns name it
	// MessageID is the command's message; for a press, the message that
	// has the button.
	MessageID int64
	// Args are a command's arguments ("/forget 2": "2"), or a button's
	// callback data after its prefix ("mode:short": "short").
	Args string
	// Text is the command's message as written; SentAt when it was written
	// (zero for a press).
	Text   string
	SentAt time.Time
	// Admin: the user is one of the bot's admins (ADMIN_USER_IDS or the owner).
	Admin bool

	// Reply sends one of the bot's texts to the chat, with rows of buttons
	// under it, split to Telegram's limit; its errors are the handler's to
	// retry or give up.
	Reply func(ctx context.Context, text string, buttons ...[]telegram.Button) error
	// Notify answers a press with a short notice (buttons only). It never
	// fails: a press answered late is refused by Telegram, and the notice
	// is only a courtesy.
	Notify func(ctx context.Context, text string)
	// Edit rewrites the message that has the pressed button (buttons
	// only), say a list to mark what the press changed. Like Notify it
	// never fails: the press did its work, the list only shows it.
	Edit func(ctx context.Context, text string, buttons ...[]telegram.Button)
	// OwnRows is whose rows the call may touch in the chat: 0 (all of the
	// chat's) for a group's admins and in private chats, otherwise the
	// caller's id, so that a member touches their own reminders, tasks
	// and approvals only. It may ask Telegram who administers the group.
	OwnRows func(ctx context.Context) (int64, error)
}

// Told is a command's error whose refusal by Telegram is told to the chat
// in the command's own words (what failed: Text of Telegram's reason),
// not as a reply that did not arrive.
type Told struct {
	Err  error
	Text func(reason any) string
}

func (e Told) Error() string { return e.Err.Error() }
func (e Told) Unwrap() error { return e.Err }

// Lang is the language of the user's Telegram client (language_code).
func (c Call) Lang() string { return c.User.LanguageCode }

// To is where answers go: the chat, in its topic.
func (c Call) To() telegram.Chat { return telegram.Chat{ID: c.Chat.ID, Thread: c.Chat.Thread} }

// UserID is the Telegram id of who wrote, or pressed.
func (c Call) UserID() int64 { return c.User.TelegramUserID }

// ReplyWith replies with the text a command's logic came to, unless it
// failed.
func (c Call) ReplyWith(ctx context.Context) func(text string, err error) error {
	return func(text string, err error) error {
		if err != nil {
			return err
		}
		return c.Reply(ctx, text)
	}
}

// Func answers a command.
type Func func(ctx context.Context, c Call) error

// Numbers reads a call's arguments as list numbers ("2", "1 3", "#2, 4")
// or as "all" (also in Russian); ok is false for anything else.
func (c Call) Numbers() (numbers []int, all, ok bool) {
	args := strings.Fields(strings.ToLower(strings.ReplaceAll(c.Args, ",", " ")))
	if len(args) == 1 && (args[0] == "all" || args[0] == "все" || args[0] == "всё") {
		return nil, true, true
	}
	for _, a := range args {
		n, err := strconv.Atoi(strings.TrimPrefix(a, "#"))
		if err != nil || n < 1 {
			return nil, false, false
		}
		numbers = append(numbers, n)
	}
	return numbers, false, len(numbers) > 0
}
