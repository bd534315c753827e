// Package present is how text is shown in a chat. The bot's own texts are
// split to Telegram's limit. The model's answers are shown while they are
// written (a draft in a private chat, edited messages elsewhere: Stream),
// then sent as a rich message when they need one and the Bot API server
// has them, else as Telegram HTML rendered from their Markdown and split
// to the limit, else, where Telegram refuses the HTML, as the plain text
// they were written as. bot/telegram makes the calls; present decides
// which, and in what order.
package present

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/internal/backoff"
)

// Presenter shows text in chats through Client.
type Presenter struct {
	Client *telegram.Client
	Log    *slog.Logger
	Config
}

// Config is how answers are shown while the model writes them.
type Config struct {
	// EditEvery spaces the edits of the messages a streamed answer is
	// shown in (STREAM_EDIT_INTERVAL; Telegram allows about one edit a
	// second in a chat); DefaultEditEvery when zero.
	EditEvery time.Duration
	// DraftEvery spaces the drafts of an answer streamed in a private chat
	// (STREAM_DRAFT_INTERVAL); DefaultDraftEvery when zero.
	DraftEvery time.Duration
}

// The defaults of the intervals, which a zero interval means too.
const (
	DefaultEditEvery  = time.Second
	DefaultDraftEvery = 300 * time.Millisecond
)

// DefaultConfig is the settings' defaults.
func DefaultConfig() Config {
	return Config{EditEvery: DefaultEditEvery, DraftEvery: DefaultDraftEvery}
}

func (c Config) editEvery() time.Duration {
	if c.EditEvery > 0 {
		return c.EditEvery
	}
	return DefaultEditEvery
}

func (c Config) draftEvery() time.Duration {
	if c.DraftEvery > 0 {
		return c.DraftEvery
	}
	return DefaultDraftEvery
}

// To is where text goes: a chat (in its topic), replying to a message
// (0: none; sent anyway should that message be gone).
type To struct {
	Chat    telegram.Chat
	ReplyTo int
}

// How an answer was shown, for metadata.shown_as.
const (
	ShownRich = "rich" // a rich message
	ShownHTML = "html" // Telegram HTML (or, refused, its plain text)
)

// Shown is the messages an answer is in, and how it was shown
// (ShownRich, ShownHTML).
type Shown struct {
	IDs []int64
	As  string
}

// Text sends one of the bot's own texts, split into as many messages as
// Telegram's length limit needs, the first replying to to.ReplyTo, the
// rows of buttons under the last. It returns the ids of the messages sent.
func (p *Presenter) Text(ctx context.Context, to To, text string, buttons ...[]telegram.Button) ([]int64, error) {
	return p.send(ctx, to, SplitMessage(text, telegram.MaxMessageLength), false, buttons, nil)
}

// Note records the messages an answer is in so far, as each is sent, so
// that a run that dies before the answer's delivery is recorded leaves
// them known (bot notes them on the update): nothing else happens between
// a send's response and its note. Nil notes nothing.
type Note func(ids []int64)

// send sends parts, a message each, the first replying to to.ReplyTo and
// the buttons under the last; with markdown each part is the model's
// Markdown (sendPart). note gets the ids sent so far after each message.
func (p *Presenter) send(ctx context.Context, to To, parts []string, markdown bool, buttons [][]telegram.Button, note Note) ([]int64, error) {
	var ids []int64
	replyTo := to.ReplyTo
	for i, part := range parts {
		if i > 0 {
			replyTo = 0
		}
		var under [][]telegram.Button
		if i == len(parts)-1 {
			under = buttons
		}
		id, err := p.sendPart(ctx, to.Chat, replyTo, part, markdown, under)
		if err != nil {
			return ids, err
		}
		ids = append(ids, id)
		if note != nil {
			note(slices.Clone(ids))
		}
	}
	return ids, nil
}

// sendPart sends one message: text as it is or, with markdown, the
// model's Markdown rendered (formatted).
func (p *Presenter) sendPart(ctx context.Context, chat telegram.Chat, replyTo int, text string, markdown bool, buttons [][]telegram.Button) (int64, error) {
	params := telegram.SendMessageParams{Chat: chat, ReplyTo: replyTo, Text: text, Buttons: buttons}
	if !markdown {
		return p.Client.SendMessage(ctx, params)
	}
	var id int64
	err := formatted(text, func(text, parseMode string) (err error) {
		params.Text, params.ParseMode = text, parseMode
		id, err = p.Client.SendMessage(ctx, params)
		return err
	})
	return id, err
}

// editPart replaces the text of a message the bot sent with a part of an
// answer (the model's Markdown, formatted), and its buttons.
func (p *Presenter) editPart(ctx context.Context, chatID, messageID int64, part string, buttons [][]telegram.Button) error {
	params := telegram.EditMessageTextParams{ChatID: chatID, MessageID: messageID, Buttons: buttons}
	return formatted(part, func(text, parseMode string) error {
		params.Text, params.ParseMode = text, parseMode
		return p.Client.EditMessageText(ctx, params)
	})
}

// formatted makes a call with the model's Markdown rendered to Telegram
// HTML and, when Telegram refuses that text (it cannot parse the
// entities, the rendered text is too long, any other 400 about the text),
// again with the plain text it was written as: a formatting error never
// loses a reply. Messages, edits and drafts all go through it.
func formatted(markdown string, call func(text, parseMode string) error) error {
	err := call(RenderMarkdown(markdown), telegram.ModeHTML)
	if !refusedText(err) {
		return err
	}
	return call(markdown, "")
}

// refusedText tells whether a 400 refused the text itself (its entities,
// its length, …), which its plain version may mend, rather than what it
// was sent to: an edit that changes nothing, a message or chat not there.
func refusedText(err error) bool {
	apiErr, ok := telegram.APIError(err)
	return ok && apiErr.Code == http.StatusBadRequest &&
		!strings.Contains(apiErr.Message, "not modified") && !strings.Contains(apiErr.Message, "not found")
}

// Typing keeps "typing…" on in the chat, refreshed every (4 s when zero),
// until the returned func is called.
func (p *Presenter) Typing(ctx context.Context, chat telegram.Chat, every time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if every <= 0 {
			every = 4 * time.Second
		}
		for {
			if err := p.Client.Typing(ctx, chat); err != nil && ctx.Err() == nil {
				p.Log.Debug("typing indicator failed", "chat_id", chat.ID, "err", err)
			}
			if !backoff.Sleep(ctx, every) {
				return
			}
		}
	}()
	return func() { cancel(); <-done }
}
