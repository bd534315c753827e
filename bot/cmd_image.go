package bot

import (
	"context"

	"github.com/membot/membot/bot/draw"
)

// /image draws a picture of what follows it (bot/draw, agent/images).
func cmdImage(ctx context.Context, h *Handler, in *incoming) error {
	stopTyping := h.presenter().Typing(ctx, in.chat(), h.TypingEvery)
	notice, err := draw.Image(ctx, h.Images, draw.Request{User: in.user, Chat: in.conversation(), UpdateID: in.update.UpdateID,
		MessageID: int64(in.msg.MessageID), Text: in.msg.Text, Prompt: in.msg.CommandArguments(), SentAt: sentAt(in),
		DailyTokenLimit: h.Access.DailyTokenLimit}, tr(in.lang()), h.Log)
	stopTyping()
	if notice != "" {
		return h.reply(ctx, in, notice)
	}
	return err
}
