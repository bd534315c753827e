package images_test

import (
	"context"
	"sync"
	"testing"

	"github.com/membot/membot/agent/images"
	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/memory"
)

// stalling is an image server that draws until the request is cut short.
type stalling struct{ started chan struct{} }

func (s stalling) GenerateImage(ctx context.Context, _, _ string) (*llm.Image, error) {
	close(s.started)
	<-ctx.Done()
	return nil, ctx.Err()
}

// steps records how the pictures' calls ended.
type steps struct {
	mu       sync.Mutex
	finished []memory.PictureDrawn
}

func (s *steps) CurrentConversation(context.Context, memory.Chat, int64) (string, error) {
	return "c1", nil
}

func (s *steps) ReservePicture(context.Context, memory.PictureAsk) (memory.Reservation, error) {
	return memory.Reservation{CallID: 1}, nil
}

func (s *steps) FinishPicture(ctx context.Context, d memory.PictureDrawn) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finished = append(s.finished, d)
	return nil
}

func (s *steps) PictureSent(context.Context, int64) error { return nil }

func (s *steps) StartTurn(context.Context, memory.TurnStart) (*memory.Turn, error) {
	return &memory.Turn{}, nil
}

func (s *steps) SaveStep(context.Context, string, memory.Step) ([]int64, error) { return nil, nil }

type noSender struct{}

func (noSender) SendPicture(context.Context, memory.Chat, int64, []byte) (images.Sent, error) {
	return images.Sent{}, nil
}

// A picture whose turn is stopped while the server draws it is counted all
// the same: the server may have drawn and billed it, and a stop must not
// make pictures free.
func TestAPictureStoppedWhileDrawnStillCounts(t *testing.T) {
	t.Parallel()
	store := &steps{}
	server := stalling{started: make(chan struct{})}
	p := &images.Painter{Config: images.Config{Model: "gpt-image-1", TokensPerImage: 16000}, Server: server, Sender: noSender{}, Store: store, Turns: store}
	ctx, stop := context.WithCancel(context.Background())
	go func() { <-server.started; stop() }()
	if _, err := p.Paint(ctx, images.Request{UserID: 1, Chat: memory.Chat{ID: 1}, Prompt: "a fox"}); err == nil {
		t.Fatal("a stopped picture was drawn")
	}
	if len(store.finished) != 1 || store.finished[0].Tokens != 16000 {
		t.Fatalf("recorded %+v, want one image call of 16000 tokens", store.finished)
	}
}
