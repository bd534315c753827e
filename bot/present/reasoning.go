package present

import (
	"context"
	"html"
	"unicode/utf8"

	"github.com/membot/membot/bot/telegram"
)

// The model's thinking, with SHOW_REASONING=collapsed: a message of its own
// replying to the answer, its text in an expandable quote that shows a line
// or two until tapped. Long thinking is shortened to what fits a message.

// maxThinking bounds the thinking shown, in characters: with the heading
// and the tags it stays under Telegram's 4096.
const maxThinking = 3500

// Reasoning sends the model's reasoning, under heading, as a collapsed
// quote replying to the answer's message. It is an extra: a failure is
// logged, not returned.
func (p *Presenter) Reasoning(ctx context.Context, chat telegram.Chat, answerID int64, heading, reasoning string) {
	if utf8.RuneCountInString(reasoning) > maxThinking {
		reasoning = string([]rune(reasoning)[:maxThinking]) + "…"
	}
	text := "<b>" + html.EscapeString(heading) + "</b>\n" +
		"<blockquote expandable>" + html.EscapeString(reasoning) + "</blockquote>"
	if _, err := p.Client.SendMessage(ctx, telegram.SendMessageParams{Chat: chat, ReplyTo: int(answerID), Text: text, ParseMode: telegram.ModeHTML}); err != nil {
		p.Log.Debug("showing the model's thinking failed", "chat_id", chat.ID, "err", err)
	}
}
