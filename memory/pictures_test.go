package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/membot/membot/memory"
)

// TestPicturesAreReservedKeptAndSentOnce: a picture's tokens are reserved
// within the user's day and the update's bound; drawn, it is kept until
// sent, so the update handled again finds it instead of drawing; sent, it
// is gone; a failed call gives its tokens back.
func TestPicturesAreReservedKeptAndSentOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pictures := open(t).Pictures()
	day := time.Now().Add(-time.Hour)
	ask := memory.PictureAsk{UserID: 7, ChatID: 7, UpdateID: 500, Model: "gpt-image-1", Prompt: "a cat",
		Tokens: 1000, PerUpdate: 2, Limit: 2500, DayStart: day}
	reserve := func(a memory.PictureAsk) memory.Reservation {
		t.Helper()
		r, err := pictures.ReservePicture(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	first := reserve(ask)
	if first.CallID == 0 || first.Kept != nil || first.Drawn != 0 || first.Spent != 0 {
		t.Fatalf("first reservation = %+v", first)
	}
	err := pictures.FinishPicture(ctx, memory.PictureDrawn{CallID: first.CallID, Status: "ok", Tokens: ask.Tokens,
		ChatID: ask.ChatID, UpdateID: ask.UpdateID, Prompt: ask.Prompt, Data: []byte("png"), MimeType: "image/png", RevisedPrompt: "a grey cat"})
	if err != nil {
		t.Fatal(err)
	}
	again := reserve(ask) // the update handled again, before the send was noted
	if again.Kept == nil || again.Kept.CallID != first.CallID || string(again.Kept.Data) != "png" || again.Kept.RevisedPrompt != "a grey cat" || again.CallID != 0 {
		t.Fatalf("the kept picture was not found: %+v", again)
	}
	if err := pictures.PictureSent(ctx, first.CallID); err != nil {
		t.Fatal(err)
	}

	// Sent, it is drawn anew: a second picture of the update, within the day.
	second := reserve(ask)
	if second.Kept != nil || second.CallID == 0 || second.Drawn != 1 || second.Spent != 1000 {
		t.Fatalf("after the send = %+v; want a new reservation after 1 picture, 1000 tokens", second)
	}
	// The update's bound (2 pictures) and the day's (2500 tokens) refuse.
	if r := reserve(ask); r.CallID != 0 || r.Drawn != 2 {
		t.Fatalf("a third picture of the update = %+v; want none reserved", r)
	}
	other := ask
	other.UpdateID = 501
	if r := reserve(other); r.CallID != 0 || r.Spent != 2000 {
		t.Fatalf("past the day's tokens = %+v; want none reserved, 2000 spent", r)
	}
	// A failed call gives its tokens back and does not count against the
	// update: the update may draw again.
	if err := pictures.FinishPicture(ctx, memory.PictureDrawn{CallID: second.CallID, Status: "error", Error: "refused"}); err != nil {
		t.Fatal(err)
	}
	if r := reserve(ask); r.CallID == 0 || r.Drawn != 1 || r.Spent != 1000 || r.Kept != nil {
		t.Fatalf("after a failed call = %+v; want a reservation after 1 picture, 1000 tokens", r)
	}
}
