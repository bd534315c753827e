// Package calltest makes command.Calls for the command packages' tests:
// a Call whose answers are recorded instead of sent.
package calltest

import (
	"context"
	"strings"
	"time"

	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/memory"
)

// Answer is one reply, or the edit of a pressed message.
type Answer struct {
	Text    string
	Buttons [][]telegram.Button
}

// Recorder keeps what a Call answered, in order.
type Recorder struct {
	Replies []Answer
	Notices []string
	Edits   []Answer
	// ReplyErr, when set, is what every Reply returns (after recording it).
	ReplyErr error
	// Own is what OwnRows returns: the caller's id for a group's member.
	Own    int64
	OwnErr error
}

// Call is a command by user 7 in their private chat (7), in English, with
// args, whose answers r records.
func (r *Recorder) Call(args string) command.Call {
	return command.Call{
		User: memory.User{TelegramUserID: 7, LanguageCode: "en"}, Chat: memory.Chat{ID: 7}, Private: true,
		UpdateID: 100, MessageID: 5, Args: args, Text: strings.TrimSpace("/command " + args),
		Reply: func(_ context.Context, text string, buttons ...[]telegram.Button) error {
			r.Replies = append(r.Replies, Answer{text, buttons})
			return r.ReplyErr
		},
		Notify: func(_ context.Context, text string) { r.Notices = append(r.Notices, text) },
		Edit: func(_ context.Context, text string, buttons ...[]telegram.Button) {
			r.Edits = append(r.Edits, Answer{text, buttons})
		},
		OwnRows: func(context.Context) (int64, error) { return r.Own, r.OwnErr },
	}
}

// InGroup is c as if it came from group -100 instead.
func InGroup(c command.Call) command.Call {
	c.Chat, c.Private = memory.Chat{ID: -100}, false
	return c
}

// Texts are the texts of the replies.
func (r *Recorder) Texts() []string {
	out := make([]string, len(r.Replies))
	for i, a := range r.Replies {
		out[i] = a.Text
	}
	return out
}

// Last is the text of the last reply, "" when there was none.
func (r *Recorder) Last() string {
	if len(r.Replies) == 0 {
		return ""
	}
	return r.Replies[len(r.Replies)-1].Text
}

// UTC is a command's zone of the bot's clock: UTC.
type UTC struct{}

// Zone is time.UTC.
func (UTC) Zone() *time.Location { return time.UTC }
