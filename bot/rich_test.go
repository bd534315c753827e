package bot_test

import (
	"context"
	"strings"
	"testing"

	"github.com/membot/membot/internal/testing/openaifake"
)

const tableAnswer = "## Fruit\n\n| fruit | colour |\n|---|---|\n| apple | red |\n| banana | yellow |\n"

// shownAs is how the chat's last answer was recorded as shown.
func shownAs(h *harness, chatID int64) string {
	var as string
	h.DB.QueryRow(context.Background(), `SELECT coalesce(m.metadata->>'shown_as', '') FROM messages m JOIN conversations c ON c.id = m.conversation_id
		WHERE c.chat_id = $1 AND m.role = 'assistant' ORDER BY m.id DESC LIMIT 1`, chatID).Scan(&as)
	return as
}

func TestATableAnswerArrivesAsARichMessage(t *testing.T) {
	t.Parallel()
	for _, streaming := range []string{"true", "false"} {
		t.Run("STREAMING="+streaming, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.Env["STREAMING"] = streaming
			h.LLM.Script(openaifake.Reply{Content: tableAnswer})
			h.Start()
			msgs := h.SayAll(jane, "fruit colours?")
			stored, _, _ := storedAnswer(h, jane.ID)
			if len(msgs) != 1 || !h.TG.IsRich(jane.ID, msgs[0].ID) || msgs[0].Text != stored || stored != tableAnswer {
				t.Fatalf("the chat shows %+v; want one rich message of the stored Markdown", msgs)
			}
			if as := shownAs(h, jane.ID); as != "rich" {
				t.Errorf("metadata.shown_as = %q, want rich", as)
			}
		})
	}
}

func TestATableAnswerInAGroupIsEditedIntoARichMessage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.LLM.Script(openaifake.Reply{Content: tableAnswer})
	h.Start()
	const group = -100515
	msg := h.Expect(group, func() int64 { return h.TG.SendMessage(group, "group", jane, "@"+h.TG.Username+" fruit colours?") })
	if msgs := h.TG.Messages(group); len(msgs) != 1 || !h.TG.IsRich(group, msg.ID) || msg.Text != tableAnswer {
		t.Fatalf("the group shows %+v; want the streamed message made rich", msgs)
	}
}

func TestATableAnswerIsReadableTextWhenTheServerHasNoRichMessages(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.TG.NoRich(true)
	h.LLM.Script(openaifake.Reply{Content: tableAnswer})
	h.Start()
	msgs := h.SayAll(jane, "fruit colours?")
	if len(msgs) != 1 || h.TG.IsRich(jane.ID, msgs[0].ID) {
		t.Fatalf("the chat shows %+v; want one message, not rich", msgs)
	}
	for _, want := range []string{"Fruit", "apple", "red", "banana", "yellow"} {
		if !strings.Contains(msgs[0].Text, want) {
			t.Errorf("the answer lacks %q: %q", want, msgs[0].Text)
		}
	}
	if as := shownAs(h, jane.ID); as != "html" {
		t.Errorf("metadata.shown_as = %q, want html", as)
	}
	if stored, _, _ := storedAnswer(h, jane.ID); stored != tableAnswer {
		t.Errorf("the stored row is %q, want the model's Markdown", stored)
	}
}
