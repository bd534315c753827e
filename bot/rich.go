package bot

import (
	"context"
	"errors"
	"log/slog"

	"github.com/membot/membot/bot/telegram"
)

// Rich messages. An answer whose Markdown has a table, headings, a nested
// list, math or a code block is sent as a rich message (and its draft is a
// rich draft) when the Bot API server has them: Telegram then shows the
// table as a table, not as pipes. The HTML rendering is the fallback (a
// server without rich messages, an answer longer than one rich message, a
// rich message refused), and plain text the last resort. The stored row
// keeps the model's Markdown; metadata.shown_as says how it was shown.

// How an answer was shown, for metadata.shown_as.
const (
	shownRich = "rich" // a rich message
	shownHTML = "html" // Telegram HTML (or, refused, its plain text)
)

// richFor tells whether text should go as a rich message.
func richFor(client *telegram.Client, text string) bool {
	return telegram.NeedsRich(text) && telegram.FitsRich(text) && client.Supports(telegram.RichMethod)
}

// richRefused tells whether a failed rich message should go as HTML
// instead (the server does not know rich messages, or refused this one);
// other failures may pass and are retried. A server without rich messages
// is noted in the log once.
func richRefused(log *slog.Logger, chatID int64, err error) bool {
	var unknown *telegram.UnsupportedError
	switch {
	case errors.As(err, &unknown):
		if unknown.First {
			log.Warn("the Bot API server does not know "+unknown.Method+": answers with tables and the like go as HTML for the rest of this run", "err", err)
		}
		return true
	case telegram.IsPermanent(err):
		log.Debug("a rich message was refused; it goes as HTML", "chat_id", chatID, "err", err)
		return true
	}
	return false
}

// sendAnswer sends an answer: as a rich message when it needs one and the
// server has them, else as HTML split to Telegram's limit. It returns the
// messages and how the answer was shown.
func (h *Handler) sendAnswer(ctx context.Context, in *incoming, text string) ([]int64, string, error) {
	if richFor(h.Client, text) {
		id, err := h.Client.SendRichMessage(ctx, in.chat(), replyTo(in), text)
		if err == nil {
			return []int64{id}, shownRich, nil
		}
		if !richRefused(h.Log, in.msg.Chat.ID, err) {
			return nil, "", err
		}
	}
	ids, err := h.send(ctx, in, text, telegram.SendOptions{Markdown: true})
	return ids, shownHTML, err
}

// finishRich makes the message a streamed answer was edited into a rich
// message, when the answer needs one; ok is false when it does not, or
// could not (the answer goes as HTML then).
func (s *streamer) finishRich(ctx context.Context, final string) (ids []int64, ok bool, err error) {
	if len(s.ids) > 1 || !richFor(s.client, final) {
		return nil, false, nil
	}
	if len(s.ids) == 1 {
		err = s.client.EditRichMessage(ctx, s.chatID, s.ids[0], final)
		ids = s.ids
	} else {
		var id int64
		id, err = s.client.SendRichMessage(ctx, s.to(), s.replyTo, final)
		ids = []int64{id}
	}
	switch {
	case err == nil:
		s.ids, s.shownAs = ids, shownRich
		return ids, true, nil
	case richRefused(s.log, s.chatID, err):
		return nil, false, nil
	}
	return s.ids, true, err
}
