package bot_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/pgtest"
)

// What the bot remembers by itself, through the real wiring.

// memoryModel answers the background calls as a model would: facts as
// JSON (a move supersedes the known home), summaries, and echoes turns.
func memoryModel(req openai.ChatCompletionRequest) openaifake.Reply {
	system, user := req.Messages[0].Content, openaifake.LastUserContent(req)
	switch {
	case strings.HasPrefix(system, "You keep the long-term memory"):
		if m := regexp.MustCompile(`#(\d+) Lives in`).FindStringSubmatch(user); m != nil && strings.Contains(user, "moved to Perm") {
			return openaifake.Reply{Content: `{"facts": [{"id": ` + m[1] + `, "text": "Lives in Perm"}]}`}
		}
		if strings.Contains(user, "I live in Kazan") {
			return openaifake.Reply{Content: "```json\n{\"facts\": [{\"text\": \"Lives in Kazan\"}]}\n```"}
		}
		if strings.Contains(user, "nonsense") {
			return openaifake.Reply{Content: `{"facts": [{"id": 999999, "text": "Owns the moon"}]}`}
		}
		return openaifake.Reply{Content: `{"facts": []}`}
	case strings.HasPrefix(system, "You write the running summary"):
		return openaifake.Reply{Content: fmt.Sprintf("SUMMARY of %d lines", strings.Count(user, "\n"))}
	}
	return openaifake.Echo(req)
}

func TestTheBotExtractsFactsSupersedesThemAndDoesNotReextractForgottenOnes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["AUTO_MEMORY"] = "on"
	h.LLM.RespondWith(memoryModel)
	h.Start()
	ctx := context.Background()

	h.Say(jane, "I live in Kazan")
	h.WaitCount(`SELECT count(*) FROM memories WHERE telegram_user_id = $1 AND content = 'Lives in Kazan' AND origin = 'auto'
		AND source_message_id = (SELECT max(id) FROM messages WHERE role = 'user' AND content LIKE '%I live in Kazan')`, 1, jane.ID)
	if got := h.Say(jane, "/memory"); !strings.Contains(got, "1. Lives in Kazan") {
		t.Fatalf("/memory = %q", got)
	}

	h.Say(jane, "Big news: I moved to Perm")
	h.WaitCount(`SELECT count(*) FROM memories WHERE telegram_user_id = $1 AND content = 'Lives in Perm' AND superseded_by IS NULL`, 1, jane.ID)
	if n := h.Count(`SELECT count(*) FROM memories WHERE content = 'Lives in Kazan' AND superseded_by IS NOT NULL AND valid_until IS NOT NULL`); n != 1 {
		t.Fatalf("the old fact is kept superseded: %d rows", n)
	}
	h.Say(jane, "what do you know?")
	if prompt := systemPrompt(h); !strings.Contains(prompt, "Lives in Perm") || strings.Contains(prompt, "Lives in Kazan") {
		t.Fatalf("the prompt should carry the current fact only:\n%s", prompt)
	}

	// An answer that breaks the rules (an id the user has no fact under)
	// changes nothing; the call is counted all the same.
	h.Say(jane, "some nonsense")
	h.WaitUntil("the nonsense turn read", func() bool {
		return h.Count(`SELECT count(*) FROM memory_jobs WHERE job = 'after_turn' AND last_message_id >= (SELECT max(id) FROM messages WHERE role = 'assistant')`) == 1
	})
	if got := h.Say(jane, "/forget 1"); !strings.Contains(got, "Lives in Perm") {
		t.Fatalf("/forget 1 = %q", got)
	}
	// The job moves on; what was forgotten does not come back from the
	// messages it was read from.
	h.Say(jane, "hello again")
	h.WaitUntil("the last turn read", func() bool {
		return h.Count(`SELECT count(*) FROM memory_jobs WHERE job = 'after_turn' AND last_message_id >= (SELECT max(id) FROM messages WHERE role = 'assistant')`) == 1
	})
	if n := h.Count(`SELECT count(*) FROM memories WHERE telegram_user_id = $1`, jane.ID); n != 0 {
		t.Fatalf("facts after /forget: %d", n)
	}
	if n := h.Count(`SELECT count(*) FROM llm_calls WHERE purpose = 'facts'`); n != 5 {
		t.Fatalf("fact calls counted: %d; want one per private turn (5)", n)
	}
	// Not in groups: a member's words are not their private memory.
	h.SayIn(-100777, "supergroup", jane, "@"+h.TG.Username+" I live in Kazan")
	h.WaitUntil("the group turn read", func() bool {
		return h.Count(`SELECT count(*) FROM memory_jobs WHERE job = 'after_turn' AND last_message_id >= (SELECT max(id) FROM messages WHERE role = 'assistant')`) == 1
	})
	if n := h.Count(`SELECT count(*) FROM memories`); n != 0 {
		t.Fatalf("facts from a group: %d", n)
	}
	var n int
	h.DB.QueryRow(ctx, `SELECT count(*) FROM llm_calls WHERE purpose = 'facts'`).Scan(&n)
	if n != 5 {
		t.Fatalf("a group turn made a fact call: %d", n)
	}
}

func TestTheBotSummarisesWhatLeavesTheWindowAndRecallsByMeaning(t *testing.T) {
	t.Parallel()
	pgtest.RequireVectors(t)
	h := newHarness(t)
	h.Env["SUMMARIES"] = "on"
	h.Env["HISTORY_LIMIT"] = "4"
	h.Env["EMBEDDINGS_MODEL"] = "fake-embed"
	h.Env["AUTO_RECALL"] = "2"
	h.LLM.RespondWith(memoryModel)
	h.Start()
	h.WaitLog("recall: full-text and semantic search")

	h.Say(jane, "Last summer I flew to Tokyo with my sister")
	for i := range 11 {
		h.Say(jane, fmt.Sprintf("filler message %d about nothing much", i))
	}
	h.WaitCount(`SELECT count(*) FROM conversation_summaries WHERE content LIKE 'SUMMARY of %'`, 1)
	h.WaitUntil("every message embedded", func() bool {
		return h.Count(`SELECT count(*) FROM messages m WHERE role IN ('user', 'assistant')
			AND NOT EXISTS (SELECT 1 FROM message_embeddings e WHERE e.message_id = m.id)`) == 0
	})
	// "trip" is no word of the old message; its meaning is (the fake's
	// embeddings put trip and flew together).
	h.Say(jane, "How was my trip?")
	prompt := systemPrompt(h)
	for _, want := range []string{"Summary of the earlier part of this conversation", "SUMMARY of", "Earlier messages of this conversation", "flew to Tokyo"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, prompt)
		}
	}
	for _, purpose := range []string{"summary", "embeddings"} {
		if h.Count(`SELECT count(*) FROM llm_calls WHERE purpose = $1 AND status = 'ok'`, purpose) == 0 {
			t.Errorf("no %s call in llm_calls", purpose)
		}
	}
	// /new takes the summaries with the conversation.
	h.Say(jane, "/new")
	h.WaitCount(`SELECT count(*) FROM conversation_summaries`, 0)
}
