package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// printReport writes the run's table.
func printReport(w io.Writer, r *loadResult, verbose bool) {
	c := r.Config
	db := "a fresh database"
	if c.Prefilled {
		db = fmt.Sprintf("a pre-filled database (%s messages)", thousands(r.RowsBefore))
	}
	fmt.Fprintf(w, "membench: %d chats × %d messages (after %d warm-up each), LLM delay %s, HISTORY_LIMIT %d, WORKERS %d, %s\n\n",
		c.Chats, c.Messages, c.Warmup, c.LLMDelay, c.Bot.HistoryLimit, c.Bot.Workers, db)
	row := func(name, format string, args ...any) {
		fmt.Fprintf(w, "%-26s %s\n", name, fmt.Sprintf(format, args...))
	}
	if r.Turns > 0 {
		turns := float64(r.Turns)
		row("turns", "%d in %.2f s", r.Turns, r.Elapsed.Seconds())
		row("throughput", "%.0f turns/s", turns/r.Elapsed.Seconds())
		row("added latency per turn", "p50 %s  p90 %s  p99 %s  max %s",
			ms(percentile(r.Latencies, 0.50)), ms(percentile(r.Latencies, 0.90)),
			ms(percentile(r.Latencies, 0.99)), ms(r.Latencies[len(r.Latencies)-1]))
		row("bot CPU per turn", "%s", ms(r.Bot.CPU/time.Duration(r.Turns)))
		if r.ServerCPUOK {
			row("PostgreSQL CPU per turn", "%s", ms(r.ServerCPU/time.Duration(r.Turns)))
		}
		row("membench CPU per turn", "%s (the fakes and the chats)", ms(r.LoadCPU/time.Duration(r.Turns)))
		row("bot peak RSS", "%.1f MB", float64(r.Bot.MaxRSS)/1024)
		row("DB statements per turn", "%.2f", float64(r.Bot.Statements)/turns)
		row("DB round trips per turn", "%.2f", float64(r.Bot.RoundTrips)/turns)
		if len(r.FirstDraft) > 0 {
			row("first draft after message", "p50 %s  p90 %s  max %s (%d of %d turns)",
				ms(percentile(r.FirstDraft, 0.50)), ms(percentile(r.FirstDraft, 0.90)), ms(r.FirstDraft[len(r.FirstDraft)-1]),
				len(r.FirstDraft), r.Turns)
		}
		row("Telegram calls per turn", "%s", perTurn(r.TelegramCalls, turns))
	}
	if len(r.Problems) == 0 {
		row("replies", "OK: %d for %d messages, each answered exactly once, in order", r.RepliesTotal, r.RepliesTotal)
	} else {
		row("replies", "FAILED")
		for _, p := range r.Problems {
			fmt.Fprintln(w, "  -", p)
		}
	}
	if verbose && r.Turns > 0 {
		fmt.Fprintln(w, "\ndatabase calls per turn (a batch is one round trip):")
		keys := make([]string, 0, len(r.Bot.Calls))
		for k := range r.Bot.Calls {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b string) int { return int(r.Bot.Calls[b] - r.Bot.Calls[a]) })
		for _, k := range keys {
			fmt.Fprintf(w, "  %6.2f  %s\n", float64(r.Bot.Calls[k])/float64(r.Turns), k)
		}
	}
}

// percentile of sorted durations, nearest rank.
func percentile(sorted []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// thousands writes n with commas: 10,000,000.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 && r != '-' && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// perTurn writes call counts per turn: the total, then each method's.
func perTurn(counts map[string]int, turns float64) string {
	total := 0
	methods := make([]string, 0, len(counts))
	for m, n := range counts {
		total += n
		methods = append(methods, m)
	}
	slices.SortFunc(methods, func(a, b string) int { return counts[b] - counts[a] })
	parts := make([]string, 0, len(methods))
	for _, m := range methods {
		parts = append(parts, fmt.Sprintf("%s %.2f", m, float64(counts[m])/turns))
	}
	return fmt.Sprintf("%.2f (%s)", float64(total)/turns, strings.Join(parts, ", "))
}
