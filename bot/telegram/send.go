package telegram

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf16"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// MaxMessageLength is Telegram's limit for one message, in UTF-16 code units.
const MaxMessageLength = 4096

// SendOptions are the optional settings of SendText and EditText.
type SendOptions struct {
	// Markdown renders the text, the model's Markdown, to Telegram's HTML.
	// A part whose entities Telegram still cannot parse goes out as the plain
	// text it was written as: a formatting error never loses a reply.
	Markdown bool
	// Buttons are rows of inline buttons under the (last) message.
	Buttons [][]Button
}

func sendOptions(opts []SendOptions) SendOptions {
	if len(opts) == 0 {
		return SendOptions{}
	}
	return opts[0]
}

// SendText sends text to a chat, split into as many messages as Telegram's
// length limit needs, the first one replying to replyTo (when not 0). It
// returns the ids of the messages sent.
func (c *Client) SendText(ctx context.Context, chat Chat, replyTo int, text string, opts ...SendOptions) ([]int64, error) {
	o := sendOptions(opts)
	parts := SplitMessage(text, MaxMessageLength)
	if o.Markdown {
		parts = SplitMarkdown(text, MaxMessageLength) // split first, so no cut falls inside a tag
	}
	var ids []int64
	for i, part := range parts {
		if i > 0 {
			replyTo = 0
		}
		msg := newMessage(chat.ID, replyTo, part)
		if i == len(parts)-1 && o.Buttons != nil {
			msg.ReplyMarkup = inlineKeyboard(o.Buttons)
		}
		id, err := c.sendMessage(ctx, chat.Thread, msg, o.Markdown)
		if err != nil {
			return ids, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// newMessage is a text message without link previews, replying to replyTo
// when not 0 (and sent anyway should that message be gone).
func newMessage(chatID int64, replyTo int, text string) tgbotapi.MessageConfig {
	msg := tgbotapi.NewMessage(chatID, text)
	msg.DisableWebPagePreview = true
	if replyTo != 0 {
		msg.ReplyToMessageID = replyTo
		msg.AllowSendingWithoutReply = true
	}
	return msg
}

// sendMessage sends one message to topic thread, its text the model's
// Markdown when markdown, and returns its id.
func (c *Client) sendMessage(ctx context.Context, thread int64, msg tgbotapi.MessageConfig, markdown bool) (int64, error) {
	if err := c.limit.wait(ctx, msg.ChatID); err != nil {
		return 0, fmt.Errorf("sendMessage: %w", err)
	}
	raw, err := c.sendFormatted(ctx, thread, &msg, &msg.Text, &msg.ParseMode, markdown)
	return sentMessageID("sendMessage", raw, err)
}

// aboutTheText tells whether a 400 refused the text itself (its entities,
// its length, …), which its plain version may mend, rather than what it
// was sent to: an edit that changes nothing, a message or chat not there.
func aboutTheText(message string) bool {
	return !strings.Contains(message, "not modified") && !strings.Contains(message, "not found")
}

// SendMarkdownPart sends one part of an answer the caller has split
// already (SplitMarkdown), rendered from the model's Markdown.
func (c *Client) SendMarkdownPart(ctx context.Context, chat Chat, replyTo int, part string) (int64, error) {
	return c.sendMessage(ctx, chat.Thread, newMessage(chat.ID, replyTo, part), true)
}

// SendHTML sends one message whose text is already Telegram HTML (the
// caller escaped what it must), replying to replyTo when not zero.
func (c *Client) SendHTML(ctx context.Context, chat Chat, replyTo int, html string) (int64, error) {
	msg := newMessage(chat.ID, replyTo, html)
	msg.ParseMode = tgbotapi.ModeHTML
	return c.sendMessage(ctx, chat.Thread, msg, false)
}

// sendFormatted makes call in topic thread, whose text and parse mode are *text and
// *parseMode. With markdown, the text goes as HTML first and, when Telegram
// refuses it (it cannot parse the entities, the rendered text is too long,
// any other 400), again as the plain text it was.
func (c *Client) sendFormatted(ctx context.Context, thread int64, call tgbotapi.Chattable, text, parseMode *string, markdown bool) (json.RawMessage, error) {
	if !markdown {
		return c.sendIn(ctx, thread, call)
	}
	plain := *text
	*text, *parseMode = RenderMarkdown(plain), tgbotapi.ModeHTML
	raw, err := c.sendIn(ctx, thread, call)
	if apiErr, ok := APIError(err); !ok || apiErr.Code != http.StatusBadRequest || !aboutTheText(apiErr.Message) {
		return raw, err
	}
	*text, *parseMode = plain, ""
	return c.sendIn(ctx, thread, call)
}

// Typing shows "typing…" in the chat (its topic) for about five seconds.
func (c *Client) Typing(ctx context.Context, chat Chat) error {
	if chat.Thread != 0 {
		_, err := c.api.MakeRequest("sendChatAction", tgbotapi.Params{"chat_id": strconv.FormatInt(chat.ID, 10),
			"message_thread_id": strconv.FormatInt(chat.Thread, 10), "action": tgbotapi.ChatTyping})
		return c.redact(err)
	}
	_, err := c.api.Request(tgbotapi.NewChatAction(chat.ID, tgbotapi.ChatTyping))
	return c.redact(err)
}

// GetUpdates long-polls for updates after offset and returns each one's JSON
// exactly as Telegram sent it, so that the inbox keeps fields this library
// does not know.
func (c *Client) GetUpdates(ctx context.Context, offset int64, timeoutSeconds int) ([]json.RawMessage, error) {
	resp, err := c.poll.Request(tgbotapi.UpdateConfig{Offset: int(offset), Limit: 100, Timeout: timeoutSeconds, AllowedUpdates: AllowedUpdates})
	if err != nil {
		return nil, fmt.Errorf("getUpdates: %w", c.redact(err))
	}
	c.reached()
	var updates []json.RawMessage
	if err := json.Unmarshal(resp.Result, &updates); err != nil {
		return nil, fmt.Errorf("getUpdates: decode result: %w", err)
	}
	return updates, nil
}

// utf16Len is the length of s as Telegram counts it.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// SplitMessage cuts text into parts of at most limit UTF-16 code units,
// preferring to cut between paragraphs, then lines, then words; a part is
// cut mid-word only when a single word is longer than the limit.
func SplitMessage(text string, limit int) []string {
	var parts []string
	for {
		// prefixWithin reads at most limit runes, so the whole split reads
		// the text about twice, however long it is.
		head := prefixWithin(text, limit)
		if len(head) == len(text) {
			break
		}
		cut := len(head)
		for _, sep := range []string{"\n\n", "\n", " "} {
			// Only cut late enough that parts do not become tiny.
			if i := strings.LastIndex(head, sep); i > len(head)/2 {
				cut = i
				break
			}
		}
		parts = append(parts, strings.TrimRight(text[:cut], " \n"))
		text = strings.TrimLeft(text[cut:], " \n")
	}
	if strings.TrimSpace(text) != "" || len(parts) == 0 {
		parts = append(parts, text)
	}
	return parts
}

// prefixWithin returns the longest prefix of s of at most limit UTF-16 code units.
func prefixWithin(s string, limit int) string {
	n := 0
	for i, r := range s {
		n += utf16.RuneLen(r)
		if n > limit {
			return s[:i]
		}
	}
	return s
}
