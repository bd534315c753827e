package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// MaxDownloadBytes is the largest file the Bot API lets a bot download
// (20 MB, core.telegram.org/bots/api#getfile).
const MaxDownloadBytes = 20 << 20

// ErrFileTooBig is a file larger than the bound a download was given: it
// was not fetched, or not past the bound.
var ErrFileTooBig = errors.New("the file is larger than a bot may download")

// ErrNotAsSaid is a file that turned out larger than its size, as the
// update and getFile said it, by more than claimMargin: the download was
// cut there, and nothing of it is used.
var ErrNotAsSaid = errors.New("the file is larger than its message said")

// claimMargin is how much larger than said a file may be: a quarter more,
// and 64 KiB. A file is never read further than that, so a size that lies
// cannot make the bot fetch, and pay for the use of, more than it decided on.
func claimMargin(size int64) int64 { return size + size/4 + 64<<10 }

// File is what getFile returns: where a file can be downloaded from.
type File struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	FileSize     int64  `json:"file_size"`
	FilePath     string `json:"file_path"`
}

// GetFile asks Telegram for a file's download path.
func (c *Client) GetFile(ctx context.Context, fileID string) (File, error) {
	var f File
	raw, err := c.request(ctx, func() (*tgbotapi.APIResponse, error) {
		return c.api.MakeRequest("getFile", tgbotapi.Params{"file_id": fileID})
	})
	if err != nil {
		return f, fmt.Errorf("getFile: %w", err)
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return f, fmt.Errorf("getFile: decode result: %w", err)
	}
	return f, nil
}

// Download fetches a file by its id, at most limit bytes (MaxDownloadBytes
// when 0 or more). size is what the update said of the file (0: unknown):
// a file known to be larger is refused before anything is asked, one that
// getFile says is larger before it is fetched, and a body that runs past
// limit is cut off. All three are ErrFileTooBig. A body that runs past
// the size said (the update's or getFile's, the larger) by more than
// claimMargin is cut off there too: ErrNotAsSaid.
func (c *Client) Download(ctx context.Context, fileID string, size, limit int64) ([]byte, error) {
	if limit <= 0 || limit > MaxDownloadBytes {
		limit = MaxDownloadBytes
	}
	if size > limit {
		return nil, ErrFileTooBig
	}
	f, err := c.GetFile(ctx, fileID)
	if apiErr, ok := APIError(err); ok && strings.Contains(strings.ToLower(apiErr.Message), "file is too big") {
		return nil, ErrFileTooBig // the update said no size, or a wrong one
	}
	if err != nil {
		return nil, err
	}
	if f.FileSize > limit {
		return nil, ErrFileTooBig
	}
	said := max(size, f.FileSize)
	bound, cut := limit, false
	if said > 0 && claimMargin(said) < limit {
		bound, cut = claimMargin(said), true
	}
	if f.FilePath == "" {
		return nil, fmt.Errorf("getFile: no file_path for the file: %w", &CallError{err: &tgbotapi.Error{Code: http.StatusBadRequest, Message: "no file_path"}})
	}
	data, err := c.fetch(ctx, f.FilePath, bound)
	if errors.Is(err, ErrFileTooBig) && cut {
		return nil, ErrNotAsSaid
	}
	if err != nil {
		return nil, fmt.Errorf("download file: %w", c.redact(err))
	}
	return data, nil
}

// fetch downloads {API}/file/bot<token>/<path>, reading at most limit bytes.
// Its failures are CallErrors, so network trouble and server errors make
// the update be handled again later, and a refusal (4xx) is final.
func (c *Client) fetch(ctx context.Context, path string, limit int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.fileTimeout)
	defer cancel()
	escaped := (&url.URL{Path: strings.TrimLeft(path, "/")}).EscapedPath()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.fileURL+escaped, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.files.Do(req)
	if err != nil {
		return nil, &CallError{err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		return nil, &CallError{err: &tgbotapi.Error{Code: resp.StatusCode, Message: resp.Status}}
	}
	if resp.ContentLength > limit {
		return nil, ErrFileTooBig
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(resp.Body, limit+1))
	switch {
	case err != nil:
		return nil, &CallError{err: err}
	case n > limit:
		return nil, ErrFileTooBig
	}
	c.reached()
	return buf.Bytes(), nil
}

// SendVoice sends audio (OGG/Opus) to a chat as a voice message, replying
// to replyTo when not 0, and returns the message's id.
func (c *Client) SendVoice(ctx context.Context, chat Chat, replyTo int, audio []byte) (int64, error) {
	if err := c.limit.wait(ctx, chat.ID); err != nil {
		return 0, fmt.Errorf("sendVoice: %w", err)
	}
	voice := tgbotapi.NewVoice(chat.ID, tgbotapi.FileBytes{Name: "answer.ogg", Bytes: audio})
	if replyTo != 0 {
		voice.ReplyToMessageID = replyTo
		voice.AllowSendingWithoutReply = true
	}
	raw, err := c.sendIn(ctx, chat.Thread, voice)
	return sentMessageID("sendVoice", raw, err)
}

// Photo is a photo the bot sent: its message, and its largest size's file.
type Photo struct {
	MessageID    int64
	FileID       string
	FileUniqueID string
	Width        int
	Height       int
	Size         int64
}

// SendPhoto sends an image (at most 10 MB, Telegram's bound for a photo)
// to a chat as a photo, replying to replyTo when not 0.
func (c *Client) SendPhoto(ctx context.Context, chat Chat, replyTo int, image []byte) (Photo, error) {
	if err := c.limit.wait(ctx, chat.ID); err != nil {
		return Photo{}, fmt.Errorf("sendPhoto: %w", err)
	}
	photo := tgbotapi.NewPhoto(chat.ID, tgbotapi.FileBytes{Name: "picture", Bytes: image})
	if replyTo != 0 {
		photo.ReplyToMessageID = replyTo
		photo.AllowSendingWithoutReply = true
	}
	raw, err := c.sendIn(ctx, chat.Thread, photo)
	if err != nil {
		return Photo{}, fmt.Errorf("sendPhoto: %w", err)
	}
	var sent tgbotapi.Message
	if err := json.Unmarshal(raw, &sent); err != nil {
		return Photo{}, fmt.Errorf("sendPhoto: decode result: %w", err)
	}
	p := Photo{MessageID: int64(sent.MessageID)}
	for _, size := range sent.Photo { // Telegram lists the sizes smallest first
		if size.Width*size.Height >= p.Width*p.Height {
			p.FileID, p.FileUniqueID, p.Width, p.Height, p.Size = size.FileID, size.FileUniqueID, size.Width, size.Height, int64(size.FileSize)
		}
	}
	return p, nil
}
