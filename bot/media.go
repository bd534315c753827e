package bot

import (
	"context"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/bot/media"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
)

// media handles a message with a file (bot/media takes it): a recording
// is heard, an image seen, a document read, and what came of it answered,
// or the user told why not.
func (h *Handler) media(ctx context.Context, in *incoming) (*queue.Delivery, error) {
	att := in.route.media
	// Counted against the rate limit before anything is fetched, whatever
	// comes of it (the turn's own record of it is then a no-op).
	arrived := memory.Event{Type: memory.EventMessageReceived, UserID: in.user.TelegramUserID, ChatID: in.msg.Chat.ID,
		UpdateID: in.update.UpdateID, Payload: map[string]any{"kind": att.Kind}}
	if err := h.Stores.Access.Arrived(ctx, in.user, arrived); err != nil {
		return nil, err
	}
	taker := &media.Taker{Config: h.Media, Client: h.Client, Agent: h.Agent, Album: h.Stores.Inbox, Files: h.Files, Log: h.Log,
		Transient: Transient, TokensLeft: h.gate().TokensLeft}
	taken, err := taker.Take(ctx, media.Message{User: in.user, ChatID: in.msg.Chat.ID, UpdateID: in.update.UpdateID,
		Caption: in.route.text, File: att})
	if taken.Tell != "" {
		if sendErr := h.reply(ctx, in, taken.Tell); sendErr != nil {
			return nil, sendErr
		}
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if taken.Heard != "" {
		if _, err := h.send(ctx, in, taken.Heard); err != nil {
			return nil, err
		}
	}
	// The row's metadata names the files (an image's bytes go to the
	// model, not the row).
	in.attachments, in.kind = []agent.Attachment{taken.File}, taken.File.Kind
	if taken.Keep {
		return nil, h.Agent.Keep(ctx, h.request(in, in.route.author+taken.Content))
	}
	return h.converse(ctx, in, in.route.author+taken.Content)
}
