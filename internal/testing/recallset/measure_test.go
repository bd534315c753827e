package recallset_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/membot/membot/internal/testing/recallset"
)

func TestEntriesFindTurnsShownWholeCutOrTruncated(t *testing.T) {
	long := "Boris: " + strings.Repeat("the pottery studio flooded on Thursday and ", 16) + "we moved."
	short := "Anna: Yes"
	result := "3 matching messages, best first (matches «marked»):\n" +
		"[2024-03-09 08:21] user: Boris: the «pottery» studio flooded on Thursday and … flooded on Thursday and the «pottery» studio\n" +
		"[2024-03-09 08:22] user: Anna: Ha, a bowl.\nSend me a picture!\n" +
		"[2024-03-09 08:23] assistant: Got it."
	entries := recallset.Entries(result)
	if len(entries) != 3 || entries[1].Text != "Anna: Ha, a bowl.\nSend me a picture!" || entries[2].Role != "assistant" {
		t.Fatalf("entries %+v", entries)
	}
	if !entries[0].Holds(long) {
		t.Error("the fragments of a long turn do not show it")
	}
	if !entries[1].Holds("Anna: Ha, a bowl.\nSend me a picture!") {
		t.Error("a turn of two lines is not shown whole")
	}
	// A short turn is shown whole or not at all: a shorter message it
	// contains is another turn.
	if (recallset.Entry{Role: "user", Text: short}).Holds("Anna: Yes, and the bowl too") {
		t.Error("a short message holds a longer turn it is the start of")
	}
	// Auto-recall truncates to 600 bytes.
	if !(recallset.Entry{Text: long[:600]}).Holds(long) {
		t.Error("a truncated long turn is not shown")
	}
	if (recallset.Entry{Text: "flooded on Thursday"}).Holds(long) {
		t.Error("a short fragment identifies a long turn")
	}
	if got := recallset.Recall(entries, []string{long, "Anna: Ha, a bowl.\nSend me a picture!", short}, 1); got != 1.0/3 {
		t.Errorf("recall@1 %v, want 1/3", got)
	}
	if got := recallset.Recall(entries, []string{long, "Anna: Ha, a bowl.\nSend me a picture!", short}, 10); got != 2.0/3 {
		t.Errorf("recall@10 %v, want 2/3", got)
	}
}

func TestRankRecallFitAndMedian(t *testing.T) {
	ranked := []int{4, 0, 2, 6}
	if got := recallset.RankRecall(ranked, []int{0, 6}, 2); got != 0.5 {
		t.Errorf("recall@2 %v, want 0.5", got)
	}
	if got := recallset.RankRecall(ranked, []int{0, 6}, 0); got != 1 {
		t.Errorf("recall of all %v, want 1", got)
	}
	lines := []string{"aaaa", "b", "cccccccc", "d", "ee", "f", "ggg"}
	// Rows 4 (2 characters and a newline) and 0 (4 and one) fill 8.
	if got := recallset.Fit(lines, ranked, 8); !reflect.DeepEqual(got, []int{4, 0}) {
		t.Errorf("Fit in 8: %v", got)
	}
	if got := recallset.Fit(lines, ranked, 7); !reflect.DeepEqual(got, []int{4}) {
		t.Errorf("Fit in 7: %v", got)
	}
	if got := recallset.Fit(lines, ranked, 1000); !reflect.DeepEqual(got, ranked) {
		t.Errorf("Fit in 1000: %v", got)
	}
	if m := recallset.Median([]int{9, 1, 5, 7}); m != 5 {
		t.Errorf("median %d, want 5", m)
	}
	if m := recallset.Median(nil); m != 0 {
		t.Errorf("median of none %d", m)
	}
}
