package bot

import (
	"encoding/json"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/membot/membot/bot/gate"
	"github.com/membot/membot/memory/queue"
)

// TestArrivalIsTheUpdateAsTheGateSeesIt: what the gate decides on is read
// from the update rightly, and a refused update keeps only its ids.
func TestArrivalIsTheUpdateAsTheGateSeesIt(t *testing.T) {
	h := &Handler{}
	private := &tgbotapi.Chat{ID: 7, Type: "private"}
	group := &tgbotapi.Chat{ID: -100, Type: "supergroup", Title: "Cooks"}
	command := func(chat *tgbotapi.Chat, text string, length int) *tgbotapi.Message {
		return &tgbotapi.Message{MessageID: 3, Chat: chat, Text: text,
			Entities: []tgbotapi.MessageEntity{{Type: "bot_command", Offset: 0, Length: length}}}
	}
	cases := []struct {
		name string
		in   *incoming
		want gate.Arrival
	}{
		{name: "text in a private chat", in: &incoming{msg: &tgbotapi.Message{Chat: private, Text: "my secret"}, route: route{action: converse}},
			want: gate.Arrival{ChatID: 7, Private: true, Kind: gate.Message, Spends: true}},
		{name: "a command that costs no tokens", in: &incoming{msg: command(private, "/start ABC", 6), route: route{action: runCommand, command: "start", args: "ABC"}},
			want: gate.Arrival{ChatID: 7, Private: true, Kind: gate.Command, Command: "start", Args: "ABC"}},
		{name: "a command that calls the model", in: &incoming{msg: command(group, "/retry", 6), route: route{action: runCommand, command: "retry"}},
			want: gate.Arrival{ChatID: -100, ChatTitle: "Cooks", Kind: gate.Command, Command: "retry", Spends: true}},
		{name: "Approve", in: &incoming{msg: &tgbotapi.Message{Chat: private}, query: &tgbotapi.CallbackQuery{ID: "q", Data: "approve:5"}},
			want: gate.Arrival{ChatID: 7, Private: true, Kind: gate.Press, Spends: true}},
		{name: "a mode's button", in: &incoming{msg: &tgbotapi.Message{Chat: group}, query: &tgbotapi.CallbackQuery{ID: "q", Data: "mode:short"}},
			want: gate.Arrival{ChatID: -100, ChatTitle: "Cooks", Kind: gate.Press}},
		{name: "a scheduled run", in: &incoming{msg: &tgbotapi.Message{Chat: private, Text: "weather"}, run: &queue.TaskRun{TaskID: 12}, route: route{action: converse}},
			want: gate.Arrival{ChatID: 7, Private: true, Kind: gate.Message, Spends: true, TaskID: 12}},
		{name: "added to a group", in: &incoming{msg: &tgbotapi.Message{Chat: group}, route: route{action: membership},
			decoded: &tgbotapi.Update{MyChatMember: &tgbotapi.ChatMemberUpdated{Chat: *group,
				OldChatMember: tgbotapi.ChatMember{Status: "left"}, NewChatMember: tgbotapi.ChatMember{Status: "member"}}}},
			want: gate.Arrival{ChatID: -100, ChatTitle: "Cooks", Kind: gate.Joined, Spends: true, Old: "left", New: "member"}},
	}
	for _, c := range cases {
		c.in.update = &queue.Update{UpdateID: 42}
		c.in.user.TelegramUserID, c.in.user.FirstName = 7, "Ivan"
		a := h.arrival(c.in)
		if a.Reply == nil || (a.Answer != nil) != (c.in.query != nil) || a.Kept == nil {
			t.Fatalf("%s: the arrival cannot answer as its kind needs", c.name)
		}
		kept := a.Kept()
		a.Reply, a.Answer, a.Kept, a.User = nil, nil, nil, c.in.user
		c.want.User, c.want.UpdateID = c.in.user, 42
		if a.ChatID != c.want.ChatID || a.Private != c.want.Private || a.ChatTitle != c.want.ChatTitle || a.Kind != c.want.Kind ||
			a.Command != c.want.Command || a.Args != c.want.Args || a.Spends != c.want.Spends || a.TaskID != c.want.TaskID ||
			a.Old != c.want.Old || a.New != c.want.New || a.UpdateID != 42 {
			t.Fatalf("%s: arrival %+v, want %+v", c.name, a, c.want)
		}
		var payload map[string]any
		if err := json.Unmarshal(kept, &payload); err != nil || payload["update_id"] != float64(42) {
			t.Fatalf("%s: kept %s (%v): want the update's ids", c.name, kept, err)
		}
		for _, secret := range []string{"secret", "Ivan", "ABC", "Cooks"} {
			if strings.Contains(string(kept), secret) {
				t.Fatalf("%s: kept %s holds %q", c.name, kept, secret)
			}
		}
	}
}
