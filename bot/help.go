package bot

import (
	"context"
	"fmt"
	"slices"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/membot/membot/bot/telegram"
)

// commandOrder is the order /help and the command menu list commands in;
// commands it does not name follow, alphabetically.
var commandOrder = []string{"start", "help", "new", "retry", "undo", "history", "mode", "model", "export",
	"memory", "forget", "reminders", "cancel_reminder", "approvals", "usage"}

// helpKey is the text key of a command's one-line description.
func helpKey(command string) string { return "help_" + command }

// commandNames lists the registered commands in commandOrder; the admin
// commands only when forAdmin.
func commandNames(forAdmin bool) []string {
	names := make([]string, 0, len(commands))
	for name := range commands {
		if forAdmin || !adminCommands[name] {
			names = append(names, name)
		}
	}
	rank := func(name string) int {
		if i := slices.Index(commandOrder, name); i >= 0 {
			return i
		}
		return len(commandOrder)
	}
	slices.SortFunc(names, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	return names
}

func cmdHelp(ctx context.Context, h *Handler, in *incoming) error {
	var lines []string
	for _, name := range commandNames(h.Access.IsAdmin(in.user.TelegramUserID)) {
		lines = append(lines, "/"+name+" — "+T(in.lang(), helpKey(name)))
	}
	return h.reply(ctx, in, fmt.Sprintf(T(in.lang(), txtHelp), strings.Join(lines, "\n")))
}

// menuLanguages are the languages the command menu is registered in: ""
// is everyone whose language has no menu of its own.
var menuLanguages = map[string]string{"": "en", "ru": "ru"}

// SetCommandMenu registers the command list with Telegram (setMyCommands),
// in Russian and in English, so that clients show it in their menu. The
// admin commands are left out: everyone sees this menu.
func SetCommandMenu(ctx context.Context, c *telegram.Client) error {
	for code, language := range menuLanguages {
		var menu []tgbotapi.BotCommand
		for _, name := range commandNames(false) {
			menu = append(menu, tgbotapi.BotCommand{Command: name, Description: T(language, helpKey(name))})
		}
		if err := c.SetCommands(ctx, code, menu); err != nil {
			return err
		}
	}
	return nil
}
