package queue_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/membot/membot/memory/queue"
)

// photo is a photo update of chat in album (media_group_id).
func photo(id, chat int64, album string) queue.Update {
	payload := fmt.Sprintf(`{"update_id":%d,"message":{"chat":{"id":%d},"from":{"id":1},"media_group_id":%q,"photo":[]}}`, id, chat, album)
	return queue.Update{UpdateID: id, ChatID: chat, Payload: []byte(payload)}
}

// TestLaterInAlbum: a photo waits while a later, unfinished photo of its
// album is in the chat's inbox; not for another album, another chat, an
// earlier photo or a finished one.
func TestLaterInAlbum(t *testing.T) {
	t.Parallel()
	s, _ := setup(t)
	ctx := context.Background()
	updates := []queue.Update{photo(90, 7, "a"), photo(91, 7, "a"), photo(92, 7, "b"), photo(93, 8, "c")}
	if err := s.SaveUpdates(ctx, updates); err != nil {
		t.Fatal(err)
	}
	later := func(chat, update int64, album string) bool {
		t.Helper()
		got, err := s.LaterInAlbum(ctx, chat, update, album)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if !later(7, 90, "a") {
		t.Error("90 does not see 91, a later photo of its album")
	}
	if later(7, 91, "a") || later(7, 92, "a") || later(7, 92, "b") || later(7, 90, "c") {
		t.Error("a photo waits for no later photo of its album")
	}
	if err := s.Complete(ctx, 91, nil, ""); err != nil {
		t.Fatal(err)
	}
	if later(7, 90, "a") {
		t.Error("90 waits for 91, which is done")
	}
}
