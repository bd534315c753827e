package weblink

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/testing/calltest"
)

// pages are web pages reached as set: through links, locally, or off.
type pages struct {
	local, off, app string
	err             error
}

func (p pages) NewSignInLink(context.Context, int64) (string, error) {
	return "https://bot.example/signin?t=one", p.err
}
func (pages) SignInTTL() time.Duration         { return 10 * time.Minute }
func (p pages) MiniAppURL() string             { return p.app }
func (p pages) Where() (localAddr, off string) { return p.local, p.off }

// apps records the Mini App buttons sent.
type apps []telegram.SendWebAppParams

func (a *apps) SendWebApp(_ context.Context, p telegram.SendWebAppParams) (int64, error) {
	*a = append(*a, p)
	return 1, nil
}

var log = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestWeb(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	cases := []struct {
		name  string
		pages Pages
		group bool
		want  string
	}{
		{"a link", pages{}, false, en.WebSignIn("https://bot.example/signin?t=one", 10)},
		{"in a group", pages{}, true, en.WebPrivate},
		{"no pages", nil, false, en.WebOff("WEB_ADDR is empty")},
		{"off", pages{off: "no public address"}, false, en.WebOff("no public address")},
		{"local", pages{local: "127.0.0.1:8080"}, false, en.WebLocal("127.0.0.1:8080")},
		{"the link fails", pages{err: errors.New("database away")}, false, en.WebFailed},
	}
	for _, c := range cases {
		r := &calltest.Recorder{}
		call := r.Call("")
		if c.group {
			call = calltest.InGroup(call)
		}
		if err := (Commands{Pages: c.pages, Log: log}).Web(context.Background(), call); err != nil {
			t.Fatal(err)
		}
		if r.Last() != c.want {
			t.Errorf("%s: /web = %q, want %q", c.name, r.Last(), c.want)
		}
	}
}

func TestTheAppIsOfferedWhereThereIsOne(t *testing.T) {
	t.Parallel()
	for _, p := range []Pages{nil, pages{}, pages{app: "https://bot.example/app"}} {
		sent := &apps{}
		if err := (Commands{Pages: p, Sender: sent}).OfferApp(context.Background(), (&calltest.Recorder{}).Call("")); err != nil {
			t.Fatal(err)
		}
		want := 0
		if p != nil && p.MiniAppURL() != "" {
			want = 1
		}
		if len(*sent) != want || want == 1 && ((*sent)[0].URL != "https://bot.example/app" || (*sent)[0].Chat.ID != 7) {
			t.Errorf("pages %+v: sent %+v, want %d button(s) to the app", p, *sent, want)
		}
	}
}
