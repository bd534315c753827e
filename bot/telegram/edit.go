package telegram

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// EditMessageTextParams are editMessageText's parameters.
type EditMessageTextParams struct {
	ChatID    int64
	MessageID int64
	Text      string
	ParseMode string     // "" (plain text) or ModeHTML
	Buttons   [][]Button // rows of inline buttons under the message (nil: none)
}

// EditMessageText replaces the text (and the buttons) of a message the bot
// sent, without link previews. An edit that changes nothing counts as done.
func (c *Client) EditMessageText(ctx context.Context, p EditMessageTextParams) error {
	edit := tgbotapi.NewEditMessageText(p.ChatID, int(p.MessageID), p.Text)
	edit.DisableWebPagePreview = true
	edit.ParseMode = p.ParseMode
	if p.Buttons != nil {
		kb := inlineKeyboard(p.Buttons)
		edit.ReplyMarkup = &kb
	}
	_, err := c.send(ctx, &edit)
	if notModified(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("editMessageText: %w", err)
	}
	return nil
}

// notModified tells whether an edit failed only because it changed
// nothing: the message shows what it was to show, which counts as done.
func notModified(err error) bool {
	apiErr, ok := APIError(err)
	return ok && apiErr.Code == http.StatusBadRequest && strings.Contains(apiErr.Message, "message is not modified")
}

// DeleteMessage deletes a message the bot sent.
func (c *Client) DeleteMessage(ctx context.Context, chatID, messageID int64) error {
	if _, err := c.send(ctx, tgbotapi.NewDeleteMessage(chatID, int(messageID))); err != nil {
		return fmt.Errorf("deleteMessage: %w", err)
	}
	return nil
}

// SendDocument sends the file at path to a chat, named name, and returns
// the message's id.
func (c *Client) SendDocument(ctx context.Context, chat Chat, name, path, caption string) (int64, error) {
	doc := tgbotapi.NewDocument(chat.ID, diskFile{name: name, path: path})
	doc.Caption = caption
	raw, err := c.sendIn(ctx, chat.Thread, doc)
	return sentMessageID("sendDocument", raw, err)
}

// SendDocumentData sends data to a chat as a file named name, replying to
// replyTo when not 0 (and sent anyway should that message be gone), and
// returns the message's id.
func (c *Client) SendDocumentData(ctx context.Context, chat Chat, replyTo int, name string, data []byte, caption string) (int64, error) {
	doc := tgbotapi.NewDocument(chat.ID, tgbotapi.FileBytes{Name: name, Bytes: data})
	doc.Caption = caption
	if replyTo != 0 {
		doc.ReplyToMessageID = replyTo
		doc.AllowSendingWithoutReply = true
	}
	raw, err := c.sendIn(ctx, chat.Thread, doc)
	return sentMessageID("sendDocument", raw, err)
}

// diskFile is a file on disk uploaded under another name. It is opened on
// every attempt (the library closes it), so a retried upload sends it whole
// again and its bytes never sit in memory at once.
type diskFile struct{ name, path string }

func (f diskFile) NeedsUpload() bool { return true }
func (f diskFile) SendData() string  { return "" }
func (f diskFile) UploadData() (string, io.Reader, error) {
	r, err := os.Open(f.path)
	return f.name, r, err
}

// sentMessageID reads the id of the message a send call returned.
func sentMessageID(method string, raw json.RawMessage, err error) (int64, error) {
	if err != nil {
		return 0, fmt.Errorf("%s: %w", method, err)
	}
	var sent tgbotapi.Message
	if err := json.Unmarshal(raw, &sent); err != nil {
		return 0, fmt.Errorf("%s: decode result: %w", method, err)
	}
	return int64(sent.MessageID), nil
}

// SetCommands registers the bot's command menu for users whose Telegram
// language is language ("" for everyone else).
func (c *Client) SetCommands(ctx context.Context, language string, commands []tgbotapi.BotCommand) error {
	call := tgbotapi.NewSetMyCommandsWithScopeAndLanguage(tgbotapi.NewBotCommandScopeDefault(), language, commands...)
	if _, err := c.send(ctx, call); err != nil {
		return fmt.Errorf("setMyCommands: %w", err)
	}
	return nil
}
