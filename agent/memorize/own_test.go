package memorize_test

import (
	"testing"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/agent/memorize"
	"github.com/membot/membot/agent/tools"
	"github.com/membot/membot/memory/jobs"
)

func TestOnlyTheUsersOwnWordsAreReadForFacts(t *testing.T) {
	t.Parallel()
	tools := agent.NewRegistry(append(tools.Builtin(tools.Env{}), agent.Tool{Name: "mcp_weather_forecast", Outside: true})...)
	own := jobs.Exchange{ChatID: 7, UserID: 7, Tools: []string{"calculator", "current_time", "set_reminder", "remember"}}
	for _, c := range []struct {
		name string
		ex   jobs.Exchange
		want bool
	}{
		{"own text with the bot's own tools", own, true},
		{"own voice", jobs.Exchange{ChatID: 7, UserID: 7, UserMedia: agent.KindVoice}, true},
		{"own video note", jobs.Exchange{ChatID: 7, UserID: 7, UserMedia: agent.KindVideoNote}, true},
		{"forwarded text", jobs.Exchange{ChatID: 7, UserID: 7, UserForwarded: true}, false},
		{"forwarded voice", jobs.Exchange{ChatID: 7, UserID: 7, UserMedia: agent.KindVoice, UserForwarded: true}, false},
		{"a file", jobs.Exchange{ChatID: 7, UserID: 7, UserMedia: agent.KindDocument}, false},
		{"an audio file", jobs.Exchange{ChatID: 7, UserID: 7, UserMedia: agent.KindAudio}, false},
		{"a photo", jobs.Exchange{ChatID: 7, UserID: 7, UserMedia: agent.KindPhoto}, false},
		{"a fetched page", jobs.Exchange{ChatID: 7, UserID: 7, Tools: []string{"fetch_url"}}, false},
		{"an MCP tool", jobs.Exchange{ChatID: 7, UserID: 7, Tools: []string{"calculator", "mcp_weather_forecast"}}, false},
		{"earlier messages found", jobs.Exchange{ChatID: 7, UserID: 7, Tools: []string{"search_history"}}, false},
		{"a tool no longer offered", jobs.Exchange{ChatID: 7, UserID: 7, Tools: []string{"mcp_gone_tool"}}, false},
		{"a message sent via an inline bot", jobs.Exchange{ChatID: 7, UserID: 7, UserViaBot: "gif"}, false},
		{"a group member", jobs.Exchange{ChatID: -100, UserID: 7}, false},
		{"a scheduled task's run", jobs.Exchange{ChatID: 7, UserID: 7, UserScheduled: true}, false},
	} {
		if got := memorize.OwnExchange(c.ex, tools); got != c.want {
			t.Errorf("%s: ownExchange = %v, want %v", c.name, got, c.want)
		}
	}
	if memorize.OwnExchange(jobs.Exchange{ChatID: 7, UserID: 7, Tools: []string{"calculator"}}, nil) {
		t.Error("without a registry a tool's result counts as outside")
	}
}
