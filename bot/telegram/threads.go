package telegram

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Topics in private chats (Bot API 9.3; bots create them since 9.4). A bot
// whose owner turned topics on in @BotFather has User.has_topics_enabled in
// getMe; a private chat may then have topics, and a message sent with
// message_thread_id goes to that topic. The library predates topics: the
// calls below add message_thread_id to its parameters, and the topic
// methods are called through its raw request path:
//
//   - createForumTopic: chat_id, name (1-128 characters) → ForumTopic
//     {message_thread_id, name, icon_color};
//   - editForumTopic: chat_id, message_thread_id, name (0-128 characters;
//     empty keeps the name) → True.
//
// Every method that sends takes a Chat: its Thread is the topic the
// message, draft or document goes to.

// Chat is where a message is sent: a chat, and in a private chat with
// topics the topic (message_thread_id; 0 for none).
type Chat struct {
	ID     int64
	Thread int64
}

// TopicsEnabled reports whether the bot has topics in private chats (getMe's
// has_topics_enabled, read by Connect).
func (c *Client) TopicsEnabled() bool { return c.topics }

// MaxTopicName is the longest topic name Telegram takes, in characters.
const MaxTopicName = 128

// CreateForumTopic opens a topic in a private chat and returns its id.
func (c *Client) CreateForumTopic(ctx context.Context, chatID int64, name string) (int64, error) {
	raw, err := c.raw(ctx, "createForumTopic", tgbotapi.Params{"chat_id": strconv.FormatInt(chatID, 10), "name": topicName(name)})
	if err != nil {
		return 0, err
	}
	var topic struct {
		MessageThreadID int64 `json:"message_thread_id"`
	}
	if err := json.Unmarshal(raw, &topic); err != nil {
		return 0, fmt.Errorf("createForumTopic: decode result: %w", err)
	}
	return topic.MessageThreadID, nil
}

// EditForumTopic renames a topic.
func (c *Client) EditForumTopic(ctx context.Context, chatID, thread int64, name string) error {
	_, err := c.raw(ctx, "editForumTopic", tgbotapi.Params{"chat_id": strconv.FormatInt(chatID, 10),
		"message_thread_id": strconv.FormatInt(thread, 10), "name": topicName(name)})
	return err
}

// topicName cuts a name to Telegram's limit.
func topicName(name string) string {
	if utf8.RuneCountInString(name) <= MaxTopicName {
		return name
	}
	return string([]rune(name)[:MaxTopicName-1]) + "…"
}

// inThread makes a call of the library go to topic thread, when there is
// one: the library cannot add message_thread_id, so the call's parameters
// are written out here and sent through the raw request path. ok is false
// for calls that need no topic (edits, deletions) and calls without one.
func (c *Client) inThread(thread int64, call tgbotapi.Chattable) (do func() (*tgbotapi.APIResponse, error), ok bool) {
	if thread == 0 {
		return nil, false
	}
	switch m := call.(type) {
	case *tgbotapi.MessageConfig:
		params := baseParams(m.BaseChat, thread)
		params["text"] = m.Text
		params.AddNonEmpty("parse_mode", m.ParseMode)
		params.AddBool("disable_web_page_preview", m.DisableWebPagePreview)
		return func() (*tgbotapi.APIResponse, error) { return c.api.MakeRequest("sendMessage", params) }, true
	case tgbotapi.DocumentConfig:
		return c.upload("sendDocument", "document", m.BaseFile, m.Caption, m.ParseMode, thread), true
	case tgbotapi.VoiceConfig:
		return c.upload("sendVoice", "voice", m.BaseFile, m.Caption, m.ParseMode, thread), true
	case tgbotapi.PhotoConfig:
		return c.upload("sendPhoto", "photo", m.BaseFile, m.Caption, m.ParseMode, thread), true
	}
	return nil, false
}

// upload is a file sent to topic thread.
func (c *Client) upload(method, field string, f tgbotapi.BaseFile, caption, parseMode string, thread int64) func() (*tgbotapi.APIResponse, error) {
	params := baseParams(f.BaseChat, thread)
	params.AddNonEmpty("caption", caption)
	params.AddNonEmpty("parse_mode", parseMode)
	return func() (*tgbotapi.APIResponse, error) {
		return c.api.UploadFiles(method, params, []tgbotapi.RequestFile{{Name: field, Data: f.File}})
	}
}

// baseParams are the parameters every sent message has, in topic thread.
func baseParams(b tgbotapi.BaseChat, thread int64) tgbotapi.Params {
	params := tgbotapi.Params{"chat_id": strconv.FormatInt(b.ChatID, 10), "message_thread_id": strconv.FormatInt(thread, 10)}
	params.AddNonZero("reply_to_message_id", b.ReplyToMessageID)
	params.AddBool("allow_sending_without_reply", b.AllowSendingWithoutReply)
	if b.ReplyMarkup != nil {
		markup, _ := json.Marshal(b.ReplyMarkup)
		params["reply_markup"] = string(markup)
	}
	return params
}
