package pg

import (
	"context"
	"os"
	"testing"

	"github.com/membot/membot/internal/sqlfile"
)

// BenchmarkNamed is what binding a params struct costs each time a
// statement runs: Named, and the rewrite pgx asks of it, for memory's
// widest statement (insertLLMCall, 13 arguments) and its longest with
// named arguments (turnHistory, 2.2 kB).
func BenchmarkNamed(b *testing.B) {
	set := sqlfile.Load(os.DirFS(".."), "memory")
	type llmCall struct {
		UserID           int64   `db:"telegram_user_id"`
		ChatID           int64   `db:"chat_id"`
		ConversationID   string  `db:"conversation_id"`
		UpdateID         int64   `db:"update_id"`
		Model            string  `db:"model"`
		PromptTokens     int     `db:"prompt_tokens"`
		CompletionTokens int     `db:"completion_tokens"`
		LatencyMS        int64   `db:"latency_ms"`
		Status           string  `db:"status"`
		Error            string  `db:"error"`
		UsageEstimated   bool    `db:"usage_estimated"`
		Purpose          string  `db:"purpose"`
		AudioSeconds     float64 `db:"audio_seconds"`
	}
	type turnRow struct {
		ChatID       int64 `db:"chat_id"`
		UpdateID     int64 `db:"update_id"`
		HistoryLimit int   `db:"history_limit"`
		ThreadID     int64 `db:"message_thread_id"`
	}
	cases := []struct {
		statement string
		params    any
	}{
		{"insertLLMCall", llmCall{UserID: 1001, ChatID: 1001, ConversationID: "5f0c9a52-8a4e-4d3c-9d1e-2f6f0b8f4a11", UpdateID: 90001,
			Model: "gpt-4o-mini", PromptTokens: 1200, CompletionTokens: 300, LatencyMS: 850, Status: "ok"}},
		{"turnHistory", turnRow{ChatID: 1001, UpdateID: 90001, HistoryLimit: 30}},
	}
	ctx := context.Background()
	for _, c := range cases {
		sql, ok := set.Lookup(c.statement)
		if !ok {
			b.Fatalf("no statement %s in memory/sql", c.statement)
		}
		b.Run(c.statement, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Named(c.params).RewriteQuery(ctx, nil, sql, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
