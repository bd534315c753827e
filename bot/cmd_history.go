package bot

import (
	"context"
	"strconv"
	"strings"

	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/stamp"
	"github.com/membot/membot/memory"
)

// HistoryStore is what /history reads.
type HistoryStore interface {
	Dialogue(ctx context.Context, chat memory.Chat, limit int) ([]memory.Message, error)
}

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
	msgs, err := h.Users.Dialogue(ctx, in.conversation(), n)
	if err != nil {
		return err
	}
	if len(msgs) == 0 {
		return h.reply(ctx, in, tr(in.lang()).HistoryEmpty)
	}
	loc := h.Access.Zone()
	lines := []string{tr(in.lang()).HistoryHeader(len(msgs), loc.String()), ""}
	group := !in.msg.Chat.IsPrivate()
	for _, m := range msgs {
		text := stamp.Strip(m.Content)
		if !group || m.Role != memory.RoleUser { // a group's rows start with their author already
			text = speaker(in.lang(), m) + ": " + text
		}
		lines = append(lines, texts.Clock(m.WrittenAt, loc)+" "+texts.Preview(text, 200))
	}
	return h.reply(ctx, in, strings.Join(lines, "\n"))
}

// speaker names who wrote a message, in the user's language.
func speaker(lang string, m memory.Message) string {
	if m.Role == memory.RoleUser {
		return tr(lang).You
	}
	return tr(lang).Bot
}
