package telegram

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/membot/membot/internal/testing/telegramfake"
)

func TestDownloadFetchesTheBytesAndRefusesWhatIsTooBig(t *testing.T) {
	t.Parallel()
	c, fake := newFakeClient(t, Config{})
	ctx := context.Background()
	data := bytes.Repeat([]byte("voice!"), 1000)
	f := fake.AddFile("voice/file 1.oga", data)
	got, err := c.Download(ctx, f.FileID, f.Size, 0)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("download = %d bytes, %v; want the %d bytes registered", len(got), err, len(data))
	}

	// Known from the update to be too big: nothing is asked.
	before := len(fake.Calls(""))
	if _, err := c.Download(ctx, f.FileID, MaxDownloadBytes+1, 0); !errors.Is(err, ErrFileTooBig) {
		t.Fatalf("oversized by the update's size: %v", err)
	}
	if n := len(fake.Calls("")) - before; n != 0 {
		t.Errorf("%d calls for a file known to be too big", n)
	}
	// getFile says it is too big: it is not fetched.
	big := fake.AddFileOfSize("doc.bin", []byte("x"), 5000)
	if _, err := c.Download(ctx, big.FileID, 0, 4000); !errors.Is(err, ErrFileTooBig) {
		t.Fatalf("oversized by getFile: %v", err)
	}
	// getFile refuses it (Telegram's "file is too big"), the update having said no size.
	huge := fake.AddFileOfSize("huge.bin", []byte("x"), MaxDownloadBytes+1)
	if _, err := c.Download(ctx, huge.FileID, 0, 0); !errors.Is(err, ErrFileTooBig) {
		t.Fatalf("refused by getFile as too big: %v", err)
	}
	// The body runs past the bound although getFile said it would not.
	liar := fake.AddFileOfSize("liar.bin", bytes.Repeat([]byte("y"), 5000), 10)
	if _, err := c.Download(ctx, liar.FileID, 0, 4000); !errors.Is(err, ErrFileTooBig) {
		t.Fatalf("a body past the bound: %v", err)
	}
	for _, call := range fake.Calls(telegramfake.DownloadMethod) {
		if strings.Contains(call.Params["file_path"], "doc.bin") {
			t.Errorf("the file getFile called too big was fetched")
		}
	}
	// An unknown file is a final refusal that never shows the token.
	_, err = c.Download(ctx, "nope", 0, 0)
	if !IsPermanent(err) || strings.Contains(err.Error(), fakeToken) {
		t.Errorf("unknown file: %v", err)
	}
}
