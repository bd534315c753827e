package metrics

import (
	"context"
	"strings"
	"testing"
	"time"
)

// /readyz reports a model whose calls all fail — only after a run of them,
// and no longer once one call succeeds.
func TestModelCheckFailsWhileEveryCallFails(t *testing.T) {
	m := New()
	check := m.ModelCheck()
	probe := func() error { return check.Probe(context.Background()) }
	for i := 1; i < FailingCalls; i++ {
		m.LLMRequest("gpt-x", "401", time.Millisecond)
		if err := probe(); err != nil {
			t.Fatalf("after %d failures: %v; want ready until %d in a row", i, err, FailingCalls)
		}
	}
	m.LLMRequest("other", "ok", time.Millisecond) // another model's success changes nothing for gpt-x
	m.LLMRequest("gpt-x", "401", time.Millisecond)
	err := probe()
	if err == nil || !strings.Contains(err.Error(), "gpt-x: the last 5 calls failed (the newest: 401)") {
		t.Fatalf("after %d failures in a row: %v", FailingCalls, err)
	}
	m.LLMRequest("gpt-x", "ok", time.Millisecond)
	if err := probe(); err != nil {
		t.Fatalf("after a success: %v", err)
	}
}
