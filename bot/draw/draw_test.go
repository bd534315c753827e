package draw

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/membot/membot/agent/images"
	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/memory"
)

// painter draws a small PNG, or fails with err.
type painter struct {
	err   error
	calls int
}

func (p *painter) GenerateImage(context.Context, string, string) (*llm.Image, error) {
	p.calls++
	if p.err != nil {
		return nil, p.err
	}
	return &llm.Image{Data: []byte("\x89PNG\r\n\x1a\n picture"), MimeType: "image/png"}, nil
}

// store keeps the turns and steps of the chat, as memory would: an update
// whose answer is stored already is not answered again; a picture is
// reserved within the day's tokens spent and the update's pictures drawn.
type store struct {
	mu      sync.Mutex
	drawn   int   // pictures drawn for the update before
	spent   int64 // tokens the user spent today
	turns   []memory.TurnStart
	steps   []memory.Step
	answer  *memory.Message
	failAll error
}

func (s *store) CurrentConversation(context.Context, memory.Chat, int64) (string, error) {
	return "conv", s.failAll
}

func (s *store) ReservePicture(_ context.Context, ask memory.PictureAsk) (memory.Reservation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := memory.Reservation{Drawn: s.drawn, Spent: s.spent}
	if (ask.PerUpdate > 0 && s.drawn >= ask.PerUpdate) || (ask.Limit >= 0 && s.spent+int64(ask.Tokens) > ask.Limit) {
		return res, s.failAll
	}
	s.spent += int64(ask.Tokens)
	res.CallID = 1
	return res, s.failAll
}

func (s *store) FinishPicture(context.Context, memory.PictureDrawn) error { return s.failAll }

func (s *store) PictureSent(context.Context, int64) error { return s.failAll }

func (s *store) StartTurn(_ context.Context, in memory.TurnStart) (*memory.Turn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, in)
	return &memory.Turn{ConversationID: "conv", Answer: s.answer}, s.failAll
}

func (s *store) SaveStep(_ context.Context, _ string, st memory.Step) ([]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failAll != nil {
		return nil, s.failAll
	}
	s.steps = append(s.steps, st)
	return nil, nil
}

const chatID = 31

// setup is a Painter that sends its photos with Photos over a fake Telegram.
func setup(t *testing.T) (*images.Painter, *painter, *store, *telegramfake.Server) {
	t.Helper()
	tg := telegramfake.New("1:test")
	t.Cleanup(tg.Close)
	client := telegram.NewClient(context.Background(), context.Background(),
		telegram.Config{Token: "1:test", APIURL: tg.URL(), Retry: telegram.SendRetry{Attempts: 1}})
	gen, st := &painter{}, &store{}
	cfg := images.DefaultConfig()
	cfg.Model = "dall-e-3"
	return &images.Painter{Config: cfg, Server: gen, Sender: Photos{Client: client}, Store: st, Turns: st}, gen, st, tg
}

func request(prompt string) Request {
	return Request{User: memory.User{TelegramUserID: 7, LanguageCode: "en"}, Chat: memory.Chat{ID: chatID}, UpdateID: 500,
		MessageID: 44, Text: "/image " + prompt, Prompt: prompt, SentAt: time.Now().Add(-time.Minute), DailyTokenLimit: 20000}
}

var log = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestAPictureIsDrawnSentAsAReplyAndKept(t *testing.T) {
	t.Parallel()
	p, _, st, tg := setup(t)
	notice, err := Image(context.Background(), p, request("a lighthouse at dawn"), texts.For("en"), log)
	if err != nil || notice != "" {
		t.Fatalf("Image = %q, %v", notice, err)
	}
	photos := tg.Photos()
	if len(photos) != 1 || photos[0].ChatID != chatID || photos[0].ReplyTo != 44 {
		t.Fatalf("photos sent %+v; want one, replying to the command", photos)
	}
	if len(st.turns) != 1 || !strings.HasSuffix(st.turns[0].Content, "] /image a lighthouse at dawn") || st.turns[0].TelegramMessageID != 44 {
		t.Errorf("the user's row: %+v", st.turns)
	}
	var answer *memory.Message
	for _, step := range st.steps {
		for i := range step.Messages {
			answer = &step.Messages[i]
		}
	}
	if answer == nil || answer.Content != "[picture] a lighthouse at dawn" || answer.TelegramMessageID != photos[0].MessageID {
		t.Errorf("the answer kept: %+v; want the picture's marker at its photo", answer)
	}
}

func TestRefusalsAreToldInWords(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	cases := []struct {
		name   string
		set    func(*images.Painter, *painter, *store)
		prompt string
		want   string
		drawn  bool
	}{
		{"pictures off", func(p *images.Painter, _ *painter, _ *store) { p.Model = "" }, "a cat", en.ImageOff, false},
		{"no prompt", nil, "  ", en.ImageUsage, false},
		{"too long a prompt", nil, strings.Repeat("a", images.MaxPromptRunes+1), en.ImageTooLong(images.MaxPromptRunes), false},
		{"over the day's tokens", func(p *images.Painter, _ *painter, s *store) {
			s.spent = 19900
			p.Budget = func(int64) (int64, time.Time) { return 20000, time.Now() }
		}, "a cat", en.ImageOverBudget(16000, 20000), false},
		{"drawn before a restart", func(_ *images.Painter, _ *painter, s *store) { s.drawn = 1 }, "a cat", en.ImageDrawnBefore, false},
		{"the server failed", func(_ *images.Painter, g *painter, _ *store) { g.err = errors.New("500 server error") }, "a cat", en.ImageFailed, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, gen, st, tg := setup(t)
			if c.set != nil {
				c.set(p, gen, st)
			}
			notice, err := Image(context.Background(), p, request(c.prompt), en, log)
			if err != nil || notice != c.want {
				t.Errorf("Image = %q, %v; want %q", notice, err, c.want)
			}
			if (gen.calls > 0) != c.drawn || len(tg.Photos()) != 0 || len(st.turns) != 0 {
				t.Errorf("asked to draw: %v (want %v), %d photos sent, %d rows kept; want none", gen.calls > 0, c.drawn, len(tg.Photos()), len(st.turns))
			}
		})
	}
}

func TestADatabaseFailureIsAnError(t *testing.T) {
	t.Parallel()
	p, _, st, tg := setup(t)
	st.failAll = errors.New("database away")
	if notice, err := Image(context.Background(), p, request("a cat"), texts.For("en"), log); !errors.Is(err, st.failAll) || notice != "" {
		t.Errorf("Image = %q, %v; want the store's error", notice, err)
	}
	if len(tg.Photos()) != 0 {
		t.Error("a photo was sent without the database")
	}
}
