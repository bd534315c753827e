package memory_test

// Benchmarks of the memory operations on a turn's path (see BENCHMARKS.md):
//
//	go test -run '^$' -bench . -benchtime 2000x ./memory
//
// BenchmarkLoadLast30 and BenchmarkSearchHistory read a fresh database of
// 10,000 seeded messages, or the database MEMBENCH_DB names (filled by
// membench seed), so that the same benchmark compares a small and a very
// large table.

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/seed"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/userdata"
)

func benchStore(b *testing.B, dsn string) *memory.Store {
	b.Helper()
	store, err := memory.Open(context.Background(), dsn, 4)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(store.Close)
	return store
}

// seededStore is a fresh database with plan's history.
func seededStore(b *testing.B, plan seed.Plan) (*memory.Store, *seed.Result) {
	b.Helper()
	store := benchStore(b, pgtest.New(b))
	res, err := seed.Fill(context.Background(), store.Pool(), plan)
	if err != nil {
		b.Fatal(err)
	}
	return store, res
}

// BenchmarkStartTurn stores a user message and loads the 30 rows before
// it, as every turn does, in a conversation of about a thousand rows.
func BenchmarkStartTurn(b *testing.B) {
	store, res := seededStore(b, seed.Plan{Messages: 10_000, Chats: 10, Giants: 1, GiantSize: 1000, Seed: 1})
	ctx := context.Background()
	user := memory.User{TelegramUserID: res.FirstChatID, FirstName: "Bench", LanguageCode: "en"}
	var next int64
	store.Pool().QueryRow(ctx, `SELECT max(update_id) FROM updates`).Scan(&next)
	b.ResetTimer()
	for range b.N {
		next++
		turn, err := store.StartTurn(ctx, memory.TurnStart{User: user, Chat: memory.Chat{ID: res.FirstChatID}, UpdateID: next,
			TelegramMessageID: next, Content: "[Текущее время: 2026-11-21 15:04] what should I cook tonight?", HistoryLimit: 30})
		if err != nil || len(turn.History) != 30 {
			b.Fatalf("start turn: %v, %d rows", err, len(turn.History))
		}
	}
}

// BenchmarkAppendMessage stores one answer row.
func BenchmarkAppendMessage(b *testing.B) {
	store, res := seededStore(b, seed.Plan{Messages: 10_000, Chats: 10, Seed: 1})
	ctx := context.Background()
	conv, err := store.CurrentConversation(ctx, memory.Chat{ID: res.FirstChatID}, res.FirstChatID)
	if err != nil {
		b.Fatal(err)
	}
	answer := memory.Message{Role: memory.RoleAssistant, Content: "Pasta with tomatoes and basil: quick, and you have it all.",
		Metadata: map[string]any{"model": "gpt-4o-mini", "prompt_tokens": 812, "completion_tokens": 41, "latency_ms": 950}}
	b.ResetTimer()
	for range b.N {
		if _, err := store.AppendMessages(ctx, conv, answer); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadLast30 loads the newest 30 rows of conversations taken at
// random, and of the longest conversations.
func BenchmarkLoadLast30(b *testing.B) {
	store, sets := readBench(b)
	ctx := context.Background()
	for _, set := range sets {
		b.Run(set.name, func(b *testing.B) {
			for i := range b.N {
				msgs, err := store.LastMessages(ctx, set.convs[i%len(set.convs)], 30)
				if err != nil || len(msgs) == 0 {
					b.Fatalf("last messages: %v, %d rows", err, len(msgs))
				}
			}
		})
	}
}

// BenchmarkSearchHistory runs search_history's query (the best 10 matches, with their neighbours,
// of two ordinary words, about 1 and 0.1 in 1,000 of the seeded words; and
// of two real words in other forms than the seeded ones, "common") in the
// same conversations, and reports the 50th and 99th percentiles too.
func BenchmarkSearchHistory(b *testing.B) {
	store, sets := readBench(b)
	ctx := context.Background()
	for _, words := range []struct{ name, text string }{{"", searchWords}, {"common-", "поездкой работе"}} {
		for _, set := range sets {
			b.Run(words.name+set.name, func(b *testing.B) {
				took := make([]time.Duration, 0, b.N)
				for i := range b.N {
					start := time.Now()
					if _, err := store.Index().SearchMessages(ctx, memory.Search{ConversationID: set.convs[i%len(set.convs)], Text: words.text, Limit: 10}); err != nil {
						b.Fatal(err)
					}
					took = append(took, time.Since(start))
				}
				slices.Sort(took)
				b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
			})
		}
	}
}

var searchWords = seed.SearchWords(200, 2000)

// conversationSet is conversations to read, by how they were chosen.
type conversationSet struct {
	name  string
	convs []string
}

// readBench opens the database of the read benchmarks and picks 1,000
// conversations at random and the 5 longest.
func readBench(b *testing.B) (*memory.Store, []conversationSet) {
	b.Helper()
	var store *memory.Store
	if dsn := os.Getenv("MEMBENCH_DB"); dsn != "" {
		store = benchStore(b, dsn)
	} else {
		store, _ = seededStore(b, seed.Plan{Messages: 10_000, Chats: 50, Seed: 1})
	}
	var rows int64
	store.Pool().QueryRow(context.Background(), `SELECT reltuples::bigint FROM pg_class WHERE oid = 'messages'::regclass`).Scan(&rows)
	b.Logf("messages: about %d rows", rows)
	return store, []conversationSet{
		{"random", conversations(b, store.Pool(), `SELECT id::text FROM conversations TABLESAMPLE BERNOULLI (50) LIMIT 1000`)},
		{"longest", conversations(b, store.Pool(), `SELECT conversation_id::text FROM messages GROUP BY 1 ORDER BY count(*) DESC LIMIT 5`)},
	}
}

func conversations(b *testing.B, pool *pgxpool.Pool, sql string) []string {
	b.Helper()
	rows, err := pool.Query(context.Background(), sql)
	if err != nil {
		b.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		rows.Scan(&id)
		ids = append(ids, id)
	}
	if rows.Err() != nil || len(ids) == 0 {
		b.Fatalf("no conversations (%v): seed the database first", rows.Err())
	}
	return ids
}

// BenchmarkResetConversation100k is /new in a chat whose conversation has
// 100,000 messages (what the user waits for), and the purge after it that
// deletes every row (purge-s/op).
func BenchmarkResetConversation100k(b *testing.B) {
	store := benchStore(b, pgtest.New(b))
	ctx := context.Background()
	var purging time.Duration
	for range b.N {
		b.StopTimer()
		res, err := seed.Fill(ctx, store.Pool(), seed.Plan{Messages: 100_000, Chats: 1, Giants: 1, GiantSize: 100_000})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := store.Reset(ctx, memory.Chat{ID: res.FirstChatID}, res.FirstChatID); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		start := time.Now()
		purgeAll(b, store)
		purging += time.Since(start)
		var left int
		store.Pool().QueryRow(ctx, `SELECT count(*) FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.chat_id = $1`,
			res.FirstChatID).Scan(&left)
		if left != 0 {
			b.Fatalf("%d rows left after reset and purge", left)
		}
	}
	b.ReportMetric(purging.Seconds()/float64(b.N), "purge-s/op")
}

// BenchmarkAdmitOwnerMode is what the gate reads of an allowed user in
// owner mode when limits count: AccessOf then RecentUsage, two round trips
// ("apart"), or both in one batch ("together", userdata.Store.AccessAndUsage).
func BenchmarkAdmitOwnerMode(b *testing.B) {
	store := benchStore(b, pgtest.New(b))
	ctx := context.Background()
	if _, err := store.Access().SetAccess(ctx, memory.KindUser, 7, memory.AccessAllowed, 1); err != nil {
		b.Fatal(err)
	}
	users := userdata.New(store.Pool())
	now := time.Now()
	b.Run("apart", func(b *testing.B) {
		for range b.N {
			if _, err := store.Access().AccessOf(ctx, 7, 7); err != nil {
				b.Fatal(err)
			}
			if _, err := users.RecentUsage(ctx, 7, 1, now.Add(-time.Hour), now.Add(-time.Minute)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("together", func(b *testing.B) {
		for range b.N {
			if _, _, err := users.AccessAndUsage(ctx, 7, 7, 1, now.Add(-time.Hour), now.Add(-time.Minute)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
