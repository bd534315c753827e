package bot

import (
	"context"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/membot/membot/bot/telegram"
)

func cmdHelp(ctx context.Context, h *Handler, in *incoming) error {
	var lines []string
	for _, c := range h.routes().listed(h.Access.IsAdmin(in.user.TelegramUserID)) {
		lines = append(lines, "/"+c.name+" — "+tr(in.lang()).Help[c.name])
	}
	return h.reply(ctx, in, tr(in.lang()).HelpPage(strings.Join(lines, "\n")))
}

// menuLanguages are the languages the command menu is registered in: ""
// is everyone whose language has no menu of its own.
var menuLanguages = map[string]string{"": "en", "ru": "ru"}

// SetCommandMenu registers the command list with Telegram (setMyCommands),
// in Russian and in English, so that clients show it in their menu. The
// admin commands are left out: everyone sees this menu.
func SetCommandMenu(ctx context.Context, client *telegram.Client) error {
	for code, language := range menuLanguages {
		var menu []tgbotapi.BotCommand
		for _, c := range newRoutes(&Handler{}).listed(false) { // the names only: nothing runs
			menu = append(menu, tgbotapi.BotCommand{Command: c.name, Description: tr(language).Help[c.name]})
		}
		if err := client.SetCommands(ctx, code, menu); err != nil {
			return err
		}
	}
	return nil
}
