package draw

import (
	"context"
	"errors"
	"testing"

	"github.com/membot/membot/agent/images"
	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/testing/calltest"
)

// typing counts the "typing…" shown and stopped.
type typing struct{ shown, stopped int }

// commandsOf is /image over p.
func commandsOf(p *images.Painter, ty *typing) Commands {
	return Commands{Painter: p, DailyTokenLimit: 20000, Log: log,
		Typing: func(context.Context, command.Call) func() { ty.shown++; return func() { ty.stopped++ } }}
}

func TestImageCommand(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	cases := []struct {
		name, args string
		fail       error // the database's
		want       string
		photos     int
	}{
		{"a picture", "a cat", nil, "", 1},
		{"no prompt", "", nil, en.ImageUsage, 0},
		{"the database fails", "a cat", errors.New("database away"), "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, _, st, tg := setup(t)
			st.failAll = c.fail
			ty := &typing{}
			d := commandsOf(p, ty)
			r := &calltest.Recorder{}
			call := r.Call(c.args)
			call.Chat.ID = chatID
			err := d.Image(context.Background(), call)
			if !errors.Is(err, c.fail) || (c.fail == nil) != (err == nil) {
				t.Errorf("err = %v, want %v", err, c.fail)
			}
			if r.Last() != c.want || len(tg.Photos()) != c.photos {
				t.Errorf("reply %q, %d photos; want %q, %d", r.Last(), len(tg.Photos()), c.want, c.photos)
			}
			if ty.shown != 1 || ty.stopped != 1 {
				t.Errorf("typing… shown %d times, stopped %d; want once each", ty.shown, ty.stopped)
			}
		})
	}
}
