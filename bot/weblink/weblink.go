// Package weblink is the chat's way into the web interface: /web, a
// one-time link that signs an admin's browser in, and the button under
// /memory's list that opens the user's memory as a Mini App. bot routes
// /web to Commands and has /memory offer the app with OfferApp.
package weblink

import (
	"context"
	"log/slog"
	"time"

	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
)

// Pages is the web interface as the commands reach it (web.Server).
type Pages interface {
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

// AppSender sends a message with a button that opens a Mini App
// (telegram.Client).
type AppSender interface {
	SendWebApp(ctx context.Context, p telegram.SendWebAppParams) (int64, error)
}

// Commands are /web and the Mini App's button.
type Commands struct {
	Pages  Pages // nil: there are no web pages
	Sender AppSender
	Log    *slog.Logger
}

// Web gives an admin a one-time link that signs a browser in to the web
// pages, in the private chat only: a link in a group is a link for
// everyone in it.
func (w Commands) Web(ctx context.Context, c command.Call) error {
	t := texts.For(c.Lang())
	if !c.Private {
		return c.Reply(ctx, t.WebPrivate)
	}
	if w.Pages == nil {
		return c.Reply(ctx, t.WebOff("WEB_ADDR is empty"))
	}
	if local, off := w.Pages.Where(); off != "" {
		return c.Reply(ctx, t.WebOff(off))
	} else if local != "" {
		return c.Reply(ctx, t.WebLocal(local))
	}
	link, err := w.Pages.NewSignInLink(ctx, c.UserID())
	if err != nil {
		w.Log.Error("make a web sign-in link", "err", err)
		return c.Reply(ctx, t.WebFailed)
	}
	return c.Reply(ctx, t.WebSignIn(link, int(w.Pages.SignInTTL().Minutes())))
}

// OfferApp follows /memory's list with the button that opens the user's
// memory as a Mini App, where there is one.
func (w Commands) OfferApp(ctx context.Context, c command.Call) error {
	if w.Pages == nil || w.Pages.MiniAppURL() == "" {
		return nil
	}
	t := texts.For(c.Lang())
	_, err := w.Sender.SendWebApp(ctx, telegram.SendWebAppParams{Chat: c.To(), Text: t.MemoryAppIntro, Button: t.MemoryAppOpen, URL: w.Pages.MiniAppURL()})
	return err
}
