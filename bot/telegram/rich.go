package telegram

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"unicode/utf8"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Rich messages (Bot API 10.1-10.3) show what Telegram's HTML cannot:
// tables, headings, nested lists, math, code blocks with their layout. As
// documented:
//
//   - sendRichMessage: chat_id, rich_message (InputRichMessage),
//     message_thread_id, reply_parameters, reply_markup → Message;
//   - sendRichMessageDraft: chat_id, draft_id, rich_message,
//     message_thread_id, can_stop, keep_on_stop → True;
//   - editMessageText takes rich_message in place of text.
//
// InputRichMessage is exactly one of html, markdown or blocks (plus is_rtl,
// skip_entity_detection, media). membot sends the model's Markdown as
// markdown. Assumption: the documentation points to "rich message
// formatting options" for the dialect but membot could not read that
// section; the reading taken is that it is the common (GitHub-style)
// Markdown models write: pipes tables, # headings, indented lists, ```
// blocks and $…$ / $$…$$ math. A text Telegram refuses still reaches the
// chat: the caller falls back to HTML, then plain text.

// MaxRichLength is the most text a rich message holds, in characters
// (Bot API 10.4's rich message limits: 32,768).
const MaxRichLength = 32768

// Method names, for Supports.
const (
	RichMethod      = "sendRichMessage"
	RichDraftMethod = "sendRichMessageDraft"
)

var (
	richTable   = regexp.MustCompile(`(?m)^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$`)
	richHeading = regexp.MustCompile(`(?m)^#{1,6} \S`)
	richNested  = regexp.MustCompile(`(?m)^(\s*[-*+]|\s*\d+[.)])\s.*\n(  |\t)+([-*+]|\d+[.)])\s`)
	richMath    = regexp.MustCompile(`\$\$[^$]+\$\$|\\\[[\s\S]+?\\\]|\\\([\s\S]+?\\\)`)
	richCode    = regexp.MustCompile("(?m)^```")
)

// NeedsRich tells whether Markdown has what only a rich message shows well:
// a table, a heading, a nested list, math or a code block.
func NeedsRich(markdown string) bool {
	return richTable.MatchString(markdown) || richHeading.MatchString(markdown) || richNested.MatchString(markdown) ||
		richMath.MatchString(markdown) || richCode.MatchString(markdown)
}

// FitsRich tells whether Markdown fits one rich message.
func FitsRich(markdown string) bool {
	return markdown != "" && utf8.RuneCountInString(markdown) <= MaxRichLength
}

// richMessage is InputRichMessage with its markdown.
func richMessage(markdown string) string {
	raw, _ := json.Marshal(map[string]string{"markdown": markdown})
	return string(raw)
}

// SendRichMessage sends the model's Markdown as one rich message, replying
// to replyTo (when not 0), and returns its id.
func (c *Client) SendRichMessage(ctx context.Context, chat Chat, replyTo int, markdown string) (int64, error) {
	if err := c.limit.wait(ctx, chat.ID); err != nil {
		return 0, err
	}
	params := tgbotapi.Params{"chat_id": strconv.FormatInt(chat.ID, 10), "rich_message": richMessage(markdown)}
	if chat.Thread != 0 {
		params["message_thread_id"] = strconv.FormatInt(chat.Thread, 10)
	}
	if replyTo != 0 {
		reply, _ := json.Marshal(map[string]any{"message_id": replyTo, "allow_sending_without_reply": true})
		params["reply_parameters"] = string(reply)
	}
	raw, err := c.raw(ctx, RichMethod, params)
	return sentMessageID(RichMethod, raw, err)
}

// EditRichMessage replaces a message's content with a rich message.
func (c *Client) EditRichMessage(ctx context.Context, chatID, messageID int64, markdown string) error {
	_, err := c.raw(ctx, "editMessageText", tgbotapi.Params{"chat_id": strconv.FormatInt(chatID, 10),
		"message_id": strconv.FormatInt(messageID, 10), "rich_message": richMessage(markdown)})
	return err
}

// SendRichMessageDraft shows a draft as a rich message: d.Markdown, or the
// "Thinking…" placeholder while it is empty.
func (c *Client) SendRichMessageDraft(ctx context.Context, d Draft) error {
	params := draftParams(d)
	params["rich_message"] = richMessage(d.Markdown)
	_, err := c.raw(ctx, RichDraftMethod, params)
	return err
}
