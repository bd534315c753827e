package bot

import (
	"context"
	"time"

	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/telegram"
)

// WebPages is the web interface as the commands reach it (web.Server).
type WebPages interface {
	// NewSignInLink is a one-time sign-in link for an admin.
	NewSignInLink(ctx context.Context, userID int64) (string, error)
	// SignInTTL is how long such a link may be used.
	SignInTTL() time.Duration
	// MiniAppURL is where /memory's Mini App is; "" without one.
	MiniAppURL() string
	// Where says how the pages are reached without a sign-in (a loopback
	// address), or why they are off; both empty when links sign in.
	Where() (localAddr, off string)
}

// cmdWeb gives an admin a one-time link that signs a browser in to the
// web pages, in the private chat only: a link in a group is a link for
// everyone in it.
func cmdWeb(ctx context.Context, h *Handler, in *incoming) error {
	t := tr(in.lang())
	if !in.msg.Chat.IsPrivate() {
		return h.reply(ctx, in, t.WebPrivate)
	}
	if h.Web == nil {
		return h.reply(ctx, in, t.WebOff("WEB_ADDR is empty"))
	}
	if local, off := h.Web.Where(); off != "" {
		return h.reply(ctx, in, t.WebOff(off))
	} else if local != "" {
		return h.reply(ctx, in, t.WebLocal(local))
	}
	link, err := h.Web.NewSignInLink(ctx, in.user.TelegramUserID)
	if err != nil {
		h.Log.Error("make a web sign-in link", "err", err)
		return h.reply(ctx, in, t.WebFailed)
	}
	return h.reply(ctx, in, t.WebSignIn(link, int(h.Web.SignInTTL().Minutes())))
}

// offerMemoryApp follows /memory's list with the button that opens the
// user's memory as a Mini App, where there is one.
func (h *Handler) offerMemoryApp(ctx context.Context, c command.Call) error {
	if h.Web == nil || h.Web.MiniAppURL() == "" {
		return nil
	}
	t := tr(c.Lang())
	_, err := h.Client.SendWebApp(ctx, telegram.SendWebAppParams{Chat: c.To(), Text: t.MemoryAppIntro, Button: t.MemoryAppOpen, URL: h.Web.MiniAppURL()})
	return err
}
