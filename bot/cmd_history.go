package bot

import (
	"context"
	"strconv"
	"strings"

	"github.com/membot/membot/bot/export"
)

const (
	historyDefault = 10
	historyMax     = 100
)

// cmdHistory shows the last N messages of the conversation, one line each,
// with their times in the bot's zone.
func cmdHistory(ctx context.Context, h *Handler, in *incoming) error {
	n := historyDefault
	if arg := strings.TrimSpace(in.msg.CommandArguments()); arg != "" {
		var err error
		if n, err = strconv.Atoi(arg); err != nil || n < 1 || n > historyMax {
			return h.reply(ctx, in, tr(in.lang()).HistoryUsage(historyMax))
		}
	}
	msgs, err := h.Stores.Transcripts.Dialogue(ctx, in.conversation(), n)
	if err != nil {
		return err
	}
	if len(msgs) == 0 {
		return h.reply(ctx, in, tr(in.lang()).HistoryEmpty)
	}
	listing := export.Dialogue
	if !in.msg.Chat.IsPrivate() {
		listing = export.GroupDialogue
	}
	return h.reply(ctx, in, listing(msgs, in.lang(), h.Access.Zone()))
}
