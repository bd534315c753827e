package bot

import (
	"context"

	"github.com/membot/membot/agent"
)

// speak sends the answer text as a voice message too. The text is
// delivered already: a failure here is logged, and the chat goes on. A
// user whose answer took them to DAILY_TOKEN_LIMIT gets no speech: it is
// a paid call too (agent.TokensPer1000SpeechChars).
func (h *Handler) speak(ctx context.Context, in *incoming, text string, answerID int64) {
	if spent, err := h.gate().BudgetSpent(ctx, in.user.TelegramUserID, in.update.UpdateID); spent || err != nil {
		h.Log.Info("the answer is not spoken: the day's tokens are spent, or unknown", "chat_id", in.msg.Chat.ID, "err", err)
		return
	}
	audio, err := h.Agent.Speak(ctx, agent.SpeakRequest{UserID: in.user.TelegramUserID, ChatID: in.msg.Chat.ID,
		UpdateID: in.update.UpdateID, Text: text})
	if err == nil {
		_, err = h.Client.SendVoice(ctx, in.chat(), int(answerID), audio)
	}
	if err != nil {
		h.Log.Warn("the spoken answer was not sent", "chat_id", in.msg.Chat.ID, "err", err)
	}
}
