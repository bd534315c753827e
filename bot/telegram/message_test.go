package telegram

import (
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// A command's arguments are what follows its entity, counted in UTF-16
// units; a hostile entity (longer than the text, not at the start, not a
// command) gives none instead of a panic.
func TestCommandArgs(t *testing.T) {
	t.Parallel()
	command := func(text string, length int) *tgbotapi.Message {
		return &tgbotapi.Message{Text: text, Entities: []tgbotapi.MessageEntity{{Type: "bot_command", Offset: 0, Length: length}}}
	}
	cases := []struct {
		name string
		msg  *tgbotapi.Message
		want string
	}{
		{"arguments", command("/forget 2", 7), "2"},
		{"none", command("/memory", 7), ""},
		{"after @bot, spaces trimmed", command("/image@membot_bot   a lighthouse ", 17), "a lighthouse"},
		{"on a new line", command("/image\nа маяк 🌅", 6), "а маяк 🌅"},
		{"an entity longer than the text", command("/forget", 40), ""},
		{"not a command", &tgbotapi.Message{Text: "hello /forget 2"}, ""},
		{"a command not at the start", &tgbotapi.Message{Text: "x /forget 2", Entities: []tgbotapi.MessageEntity{{Type: "bot_command", Offset: 2, Length: 7}}}, ""},
	}
	for _, c := range cases {
		if got := CommandArgs(c.msg); got != c.want {
			t.Errorf("%s: CommandArgs = %q, want %q", c.name, got, c.want)
		}
	}
}
