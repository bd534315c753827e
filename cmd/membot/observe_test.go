package main

import (
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/testkit"
)

func TestMetricsHealthAndReadiness(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["METRICS_ADDR"] = "127.0.0.1:0"
	h.LLM.Script(
		openaifake.Reply{Status: 500}, // retried
		openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("c1", "calculator", `{"expression":"6*7"}`)}},
		openaifake.Reply{Content: "42"},
	)
	h.TG.Inject(telegramfake.Fault{Method: "sendMessage", Status: 429, RetryAfter: 1, Message: "Too Many Requests: retry after 1", Times: 1})
	h.Start()
	base := "http://" + h.WaitLog(`msg="metrics server listening" addr=(\S+)`)[1]

	if code, body := testkit.Get(t, base+"/healthz"); code != 200 || body != "ok\n" {
		t.Fatalf("/healthz = %d %q", code, body)
	}
	if code, body := testkit.Get(t, base+"/readyz"); code != 200 || !strings.Contains(body, "database: ok") || !strings.Contains(body, "telegram: ok") {
		t.Fatalf("/readyz = %d %q", code, body)
	}
	if got := h.Say(jane, "6*7?"); got != "42" {
		t.Fatalf("reply = %q", got)
	}
	h.WaitIdle()

	_, body := testkit.Get(t, base+"/metrics")
	for _, series := range []string{
		`membot_updates_received_total{source="polling"} 1`,
		`membot_replies_sent_total{kind="answer"} 1`,
		`membot_turn_duration_seconds_count{outcome="answered"} 1`,
		`membot_llm_request_duration_seconds_count{model="test-model"} 3`,
		`membot_llm_errors_total{status="500"} 1`,
		`membot_tool_calls_total{result="ok",tool="calculator"} 1`,
		`membot_telegram_retries_total{reason="429"} 1`,
		`membot_telegram_rate_limited_total 1`,
		`membot_inbox_backlog 0`,
		`membot_inbox_scrape_ok 1`,
		`membot_purge_backlog 0`,
		`membot_db_pool_max_connections 20`,
		`membot_db_pool_acquires_total `,
		`go_goroutines `,
		`process_resident_memory_bytes `,
	} {
		if !strings.Contains(body, "\n"+series) {
			t.Errorf("/metrics lacks %s", series)
		}
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", body)
	}
}
