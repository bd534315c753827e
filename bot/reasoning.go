package bot

import (
	"context"
	"html"
	"unicode/utf8"
)

// The model's thinking, with SHOW_REASONING=collapsed: a message of its own
// replying to the answer, its text in an expandable quote that shows a line
// or two until tapped. Long thinking is shortened to what fits a message.

// maxThinking bounds the thinking shown, in characters: with the heading
// and the tags it stays under Telegram's 4096.
const maxThinking = 3500

// showReasoning sends reasoning as a collapsed quote replying to the
// answer's message. It is an extra: a failure is logged, not the turn's.
func (h *Handler) showReasoning(ctx context.Context, in *incoming, answerID int64, reasoning string) {
	if utf8.RuneCountInString(reasoning) > maxThinking {
		reasoning = string([]rune(reasoning)[:maxThinking]) + "…"
	}
	text := "<b>" + html.EscapeString(tr(in.lang()).Thinking) + "</b>\n" +
		"<blockquote expandable>" + html.EscapeString(reasoning) + "</blockquote>"
	if _, err := h.Client.SendHTML(ctx, in.chat(), int(answerID), text); err != nil {
		h.Log.Debug("showing the model's thinking failed", "chat_id", in.msg.Chat.ID, "err", err)
	}
}
