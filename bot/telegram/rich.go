package telegram

import (
	"context"
	"encoding/json"
	"strconv"

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
// chat: bot/present falls back to HTML, then plain text.

// MaxRichLength is the most text a rich message holds, in characters
// (Bot API 10.4's rich message limits: 32,768).
const MaxRichLength = 32768

// Method names, for Supports.
const (
	RichMethod      = "sendRichMessage"
	RichDraftMethod = "sendRichMessageDraft"
)

// richMessage is InputRichMessage with its markdown.
func richMessage(markdown string) string {
	raw, _ := json.Marshal(map[string]string{"markdown": markdown})
	return string(raw)
}

// SendRichMessageParams are sendRichMessage's parameters.
type SendRichMessageParams struct {
	Chat     Chat   // the chat, and its topic
	ReplyTo  int    // the message replied to (0: none); sent anyway should it be gone
	Markdown string // the model's Markdown
}

// SendRichMessage sends the model's Markdown as one rich message, and
// returns its id.
func (c *Client) SendRichMessage(ctx context.Context, p SendRichMessageParams) (int64, error) {
	if err := c.limit.wait(ctx, p.Chat.ID); err != nil {
		return 0, err
	}
	params := tgbotapi.Params{"chat_id": strconv.FormatInt(p.Chat.ID, 10), "rich_message": richMessage(p.Markdown)}
	if p.Chat.Thread != 0 {
		params["message_thread_id"] = strconv.FormatInt(p.Chat.Thread, 10)
	}
	if p.ReplyTo != 0 {
		reply, _ := json.Marshal(map[string]any{"message_id": p.ReplyTo, "allow_sending_without_reply": true})
		params["reply_parameters"] = string(reply)
	}
	raw, err := c.raw(ctx, RichMethod, params)
	return sentMessageID(RichMethod, raw, err)
}

// EditRichMessageParams are editMessageText's parameters for a rich message.
type EditRichMessageParams struct {
	ChatID    int64
	MessageID int64
	Markdown  string // the model's Markdown
}

// EditRichMessage replaces a message's content with a rich message. An
// edit that changes nothing counts as done.
func (c *Client) EditRichMessage(ctx context.Context, p EditRichMessageParams) error {
	_, err := c.raw(ctx, "editMessageText", tgbotapi.Params{"chat_id": strconv.FormatInt(p.ChatID, 10),
		"message_id": strconv.FormatInt(p.MessageID, 10), "rich_message": richMessage(p.Markdown)})
	if notModified(err) {
		return nil
	}
	return err
}

// SendRichMessageDraftParams are sendRichMessageDraft's parameters.
type SendRichMessageDraftParams struct {
	Draft
	Markdown string // the model's Markdown; empty shows the "Thinking…" placeholder
}

// SendRichMessageDraft shows a draft as a rich message.
func (c *Client) SendRichMessageDraft(ctx context.Context, p SendRichMessageDraftParams) error {
	params := draftParams(p.Draft)
	params["rich_message"] = richMessage(p.Markdown)
	_, err := c.raw(ctx, RichDraftMethod, params)
	return err
}
