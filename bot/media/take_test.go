package media

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/filetext"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/memory"
)

// transcriber hears what it is told to, and records the recordings it got.
type transcriber struct {
	mu    sync.Mutex
	text  string
	err   error
	heard []agent.Attachment
}

func (f *transcriber) Transcribe(_ context.Context, req agent.TranscribeRequest) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.heard = append(f.heard, req.Audio)
	return f.text, f.err
}

// album says a later photo of the album is in the inbox from the call
// number later on (0: never), counting the calls.
type album struct {
	mu           sync.Mutex
	later, calls int
}

func (a *album) LaterInAlbum(context.Context, int64, int64, string) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls++
	return a.later > 0 && a.calls >= a.later, nil
}

var errTransient = errors.New("the model server is away")

var sender = memory.User{TelegramUserID: 5, LanguageCode: "en"}

// setup is a Taker with the default settings over a fake Telegram.
func setup(t *testing.T) (*Taker, *telegramfake.Server, *transcriber) {
	t.Helper()
	tg := telegramfake.New("1:test")
	t.Cleanup(tg.Close)
	client := telegram.NewClient(context.Background(), context.Background(),
		telegram.Config{Token: "1:test", APIURL: tg.URL(), Retry: telegram.SendRetry{Attempts: 1}})
	tr := &transcriber{text: "  hello there\nsecond line "}
	cfg := DefaultConfig()
	cfg.AlbumWait = 5 * time.Millisecond
	return &Taker{Config: cfg, Client: client, Agent: tr, Album: &album{}, Files: filetext.New(filetext.Config{}),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Transient: func(err error) bool { return errors.Is(err, errTransient) }}, tg, tr
}

func message(f telegramfake.FileRef, kind, name, mime string, seconds int) Message {
	return Message{User: sender, ChatID: 5, UpdateID: 70, Caption: " note ",
		File: agent.Attachment{Kind: kind, FileID: f.FileID, FileName: name, MimeType: mime, Size: f.Size, Duration: seconds}}
}

var en = texts.For("en")

func TestAVoiceMessageIsHeard(t *testing.T) {
	t.Parallel()
	tk, tg, tr := setup(t)
	f := tg.AddFile("voice.oga", telegramfake.OggOpus(12, 4000))
	got, err := tk.Take(context.Background(), message(f, agent.KindVoice, "", "audio/ogg", 12))
	if err != nil {
		t.Fatal(err)
	}
	if got.Tell != "" || got.Content != "[voice 0:12] hello there\nsecond line\n\nnote" || got.Heard != en.Heard("hello there…") {
		t.Errorf("Take = %+v", got)
	}
	if len(tr.heard) != 1 || len(tr.heard[0].Data) < 4000 || got.File.Data != nil {
		t.Errorf("the transcriber got %d recordings; the row keeps %d bytes; want the file (4000 bytes or more) heard, none kept", len(tr.heard), len(got.File.Data))
	}
	tk.ShowHeard = false
	if got, _ := tk.Take(context.Background(), message(f, agent.KindVoice, "", "", 12)); got.Heard != "" {
		t.Errorf("with TRANSCRIPT_ECHO off the transcript is shown: %q", got.Heard)
	}
}

// A voice message that says it lasts a second and lasts a minute is counted
// and marked by what was downloaded.
func TestALyingVoiceMessageIsMarkedAndCountedByItsFile(t *testing.T) {
	t.Parallel()
	tk, tg, tr := setup(t)
	var asked int
	tk.TokensLeft = func(_ context.Context, userID, updateID int64) (int64, bool, error) {
		asked++
		return int64(agent.AudioTokens(30)), true, nil
	}
	short := tg.AddFile("short.oga", telegramfake.OggOpus(20, 2000))
	got, err := tk.Take(context.Background(), message(short, agent.KindVoice, "", "", 1))
	if err != nil || !strings.HasPrefix(got.Content, "[voice 0:20] ") {
		t.Fatalf("a 20 s file that says 1 s: %+v, %v; want marked 0:20", got, err)
	}
	long := tg.AddFile("long.oga", telegramfake.OggOpus(60, 2000))
	got, err = tk.Take(context.Background(), message(long, agent.KindVoice, "", "", 1))
	if want := en.VoiceOverBudget("1:00", agent.AudioTokens(60), agent.AudioTokens(30)); err != nil || got.Tell != want {
		t.Fatalf("a 60 s file over the budget: %+v, %v; want %q", got, err, want)
	}
	if len(tr.heard) != 1 || asked != 2 {
		t.Errorf("%d recordings transcribed, budget asked %d times; want the one within the budget, asked each time", len(tr.heard), asked)
	}
}

func TestARecordingThatCannotBeHeard(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		set         func(*Taker, *transcriber)
		size        int64 // what the message says; 0: the file's
		tell        string
		err         error
		transcribed bool
	}{
		{"transcription off", func(tk *Taker, _ *transcriber) { tk.Transcribe = false }, 0, en.VoiceOff, nil, false},
		{"too big to download", nil, telegram.MaxDownloadBytes + 1, en.FileTooBig(texts.ByteSize(telegram.MaxDownloadBytes)), nil, false},
		{"nothing said", func(_ *Taker, tr *transcriber) { tr.text = " \n " }, 0, en.HeardNothing, nil, true},
		{"the server refused for good", func(_ *Taker, tr *transcriber) { tr.err = errors.New("400 bad audio") }, 0, en.TranscriptionFailed, errors.New("any"), true},
		{"the server is away", func(_ *Taker, tr *transcriber) { tr.err = errTransient }, 0, "", errTransient, true},
		{"the database is away", func(tk *Taker, _ *transcriber) {
			tk.TokensLeft = func(context.Context, int64, int64) (int64, bool, error) { return 0, false, errTransient }
		}, 0, "", errTransient, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tk, tg, tr := setup(t)
			if c.set != nil {
				c.set(tk, tr)
			}
			f := tg.AddFile("v.oga", telegramfake.OggOpus(3, 1000))
			m := message(f, agent.KindVoice, "", "", 3)
			if c.size > 0 {
				m.File.Size = c.size
			}
			got, err := tk.Take(context.Background(), m)
			if got.Tell != c.tell || got.Content != "" || (err == nil) != (c.err == nil) || errors.Is(c.err, errTransient) && !errors.Is(err, errTransient) {
				t.Errorf("Take = %+v, %v; want told %q, error %v", got, err, c.tell, c.err)
			}
			if (len(tr.heard) > 0) != c.transcribed {
				t.Errorf("transcribed: %v, want %v", len(tr.heard) > 0, c.transcribed)
			}
			if (c.size > 0 || c.tell == en.VoiceOff) && len(tg.Calls("getFile")) != 0 {
				t.Error("a file too big, or not to be heard, was asked for")
			}
		})
	}
}

func TestAnImageIsSeen(t *testing.T) {
	t.Parallel()
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 100)...)
	cases := []struct {
		name    string
		set     func(*Taker)
		kind    string
		data    []byte
		caption string
		content string
		tell    string
		fetched bool
	}{
		{"a photo", nil, agent.KindPhoto, png, "a cat", "[photo] a cat", "", true},
		{"an image file", nil, agent.KindImage, png, "", "[image cat.png]", "", true},
		{"a file that says it is an image and is not", nil, agent.KindImage, []byte("MZ\x90\x00 not an image"), "", "", en.FileUnreadable("cat.png"), true},
		{"vision off, no caption", func(tk *Taker) { tk.Vision = agent.VisionOff }, agent.KindPhoto, png, "", "", en.VisionOff, false},
		{"vision off, a caption", func(tk *Taker) { tk.Vision = agent.VisionOff }, agent.KindPhoto, png, "what is it?", "[photo] what is it?", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tk, tg, _ := setup(t)
			if c.set != nil {
				c.set(tk)
			}
			f := tg.AddFile("cat.png", c.data)
			m := message(f, c.kind, "cat.png", "image/png", 0)
			m.Caption = c.caption
			got, err := tk.Take(context.Background(), m)
			if err != nil || got.Content != c.content || got.Tell != c.tell {
				t.Fatalf("Take = %+v, %v; want content %q, told %q", got, err, c.content, c.tell)
			}
			if fetched := len(tg.Calls("getFile")) > 0; fetched != c.fetched {
				t.Errorf("downloaded: %v, want %v", fetched, c.fetched)
			}
			if c.content != "" && c.fetched && string(got.File.Data) != string(c.data) {
				t.Errorf("the image's data is not kept for the model")
			}
		})
	}
}

// The photos of an album before its last are kept unanswered, undownloaded;
// the last one (no later one in the inbox, nor within AlbumWait) is seen.
func TestAnAlbumIsAnsweredByItsLastPhoto(t *testing.T) {
	t.Parallel()
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 100)...)
	for name, c := range map[string]struct {
		later int
		keep  bool
	}{"a later one in the inbox": {1, true}, "a later one within the wait": {2, true}, "the last": {0, false}} {
		tk, tg, _ := setup(t)
		al := &album{later: c.later}
		tk.Album = al
		f := tg.AddFile("p.jpg", png)
		m := message(f, agent.KindPhoto, "", "", 0)
		m.File.Album = "a1"
		got, err := tk.Take(context.Background(), m)
		if err != nil || got.Keep != c.keep || got.Content != "[photo] note" {
			t.Errorf("%s: Take = %+v, %v; want keep %v", name, got, err, c.keep)
		}
		if fetched := len(tg.Calls("getFile")) > 0; fetched == c.keep {
			t.Errorf("%s: downloaded %v, want %v", name, fetched, !c.keep)
		}
	}
}

func TestADocumentIsRead(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, file, mime string
		data             string
		set              func(*Taker)
		content, tell    string
	}{
		{"a text file", "notes.md", "text/markdown", "# Plans\nbuy milk", nil, "[file notes.md] note\n\n--- notes.md #", ""},
		{"cut at FILE_CHARS", "long.txt", "text/plain", strings.Repeat("a", 50), func(tk *Taker) { tk.FileChars = 10 },
			"first 10 characters are shown", ""},
		{"a kind not read", "movie.mkv", "video/x-matroska", "xx", nil, "", en.UnsupportedFile("movie.mkv")},
		{"binary that says it is text", "data.txt", "text/plain", "\x00\x01\x02\x03\xff\xfe\x00\x00binary\x00\x00", nil, "", en.UnsupportedFile("data.txt")},
		{"no text", "empty.txt", "text/plain", " \n\t ", nil, "", en.NoTextInFile("empty.txt")},
		{"over FILE_MAX_BYTES", "big.txt", "text/plain", strings.Repeat("b", 3000), func(tk *Taker) { tk.FileBytes = 1024 }, "", en.FileTooBig("1 KB")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tk, tg, _ := setup(t)
			if c.set != nil {
				c.set(tk)
			}
			f := tg.AddFile(c.file, []byte(c.data))
			got, err := tk.Take(context.Background(), message(f, agent.KindDocument, c.file, c.mime, 0))
			if err != nil || got.Tell != c.tell || (c.content == "") != (got.Content == "") || !strings.Contains(got.Content, c.content) {
				t.Fatalf("Take = %+v, %v; want told %q, content with %q", got, err, c.tell, c.content)
			}
			if c.name == "a text file" && !strings.Contains(got.Content, "\n# Plans\nbuy milk\n--- end of notes.md #") {
				t.Errorf("the text is not framed whole: %q", got.Content)
			}
		})
	}
}

func TestADownloadThatFails(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		fault telegramfake.Fault
		tell  string
		err   bool
	}{
		{"Telegram refuses the file", telegramfake.Fault{Method: "getFile", Status: 400, Message: "Bad Request: invalid file_id", Times: 1}, en.FileUnreadable("notes.md"), false},
		{"Telegram is away", telegramfake.Fault{Method: "getFile", Status: 502, Message: "Bad Gateway", Times: 1}, "", true},
	}
	for _, c := range cases {
		tk, tg, _ := setup(t)
		f := tg.AddFile("notes.md", []byte("text"))
		tg.Inject(c.fault)
		got, err := tk.Take(context.Background(), message(f, agent.KindDocument, "notes.md", "text/markdown", 0))
		if got.Tell != c.tell || (err != nil) != c.err || got.Content != "" {
			t.Errorf("%s: Take = %+v, %v; want told %q, an error: %v", c.name, got, err, c.tell, c.err)
		}
	}
	tk, tg, _ := setup(t)
	f := tg.AddFileOfSize("notes.md", []byte(strings.Repeat("x", 100000)), 100) // says 100 bytes
	f.Size = 100
	got, err := tk.Take(context.Background(), message(f, agent.KindDocument, "notes.md", "text/markdown", 0))
	if err != nil || got.Tell != en.FileUnreadable("notes.md") {
		t.Errorf("a file larger than it said: Take = %+v, %v; want FileUnreadable", got, err)
	}
}
