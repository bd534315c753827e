package bot_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/agent/request"
	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/testkit"
)

// A voice message: its bytes go to the transcription endpoint exactly once,
// the transcript is the stored user row (marked with the recording's
// length, its file named in the metadata, never its bytes), the user sees
// what was heard, and the answer is to the transcript.
func TestAVoiceMessageIsTranscribedStoredAndAnswered(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	recording := []byte("what time is it in Tokyo?") // the fake hears UTF-8 as that text
	f := h.TG.AddFile("voice/file_1.oga", recording)
	before := h.LastMessageID(jane.ID)
	h.WaitDone(h.TG.SendMedia(jane, "voice", telegramfake.Voice(f, 72), ""))
	got := h.MessagesAfter(jane.ID, before)
	if len(got) != 2 || got[0].Text != "🎙 I heard: “what time is it in Tokyo?”" ||
		got[1].Text != "echo: [voice 1:12] what time is it in Tokyo?" {
		t.Fatalf("the chat got %+v", got)
	}
	heard := h.LLM.Transcriptions()
	if len(heard) != 1 || !bytes.Equal(heard[0].Audio, recording) || heard[0].Model != "whisper-1" ||
		!strings.HasSuffix(heard[0].FileName, ".ogg") || heard[0].ResponseFormat != "json" {
		t.Fatalf("transcription requests: %+v", heard)
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'user' AND content LIKE '[Текущее время: %] [voice 1:12] what time is it in Tokyo?'
		AND metadata->'media'->0->>'file_id' = $1 AND metadata->'media'->0->>'kind' = 'voice'
		AND (metadata->'media'->0->>'duration')::int = 72 AND (metadata->'media'->0->>'file_size')::int = $2
		AND metadata->'media'->0->>'mime_type' = 'audio/ogg' AND NOT metadata::text LIKE '%Tokyo%'`, f.FileID, len(recording)); n != 1 {
		t.Errorf("%d user rows hold the transcript with the file's metadata, want 1", n)
	}
	// search_history's full-text index finds the transcript.
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'user' AND to_tsvector('simple'::regconfig, membot_plain_text(content)) @@ to_tsquery('simple', 'tokyo')`); n < 1 {
		t.Errorf("the transcript is not found by full-text search")
	}
	if n := h.Count(`SELECT count(*) FROM llm_calls WHERE purpose = 'transcription' AND model = 'whisper-1' AND audio_seconds > 0
		AND telegram_user_id = $1 AND completion_tokens > 0`, jane.ID); n != 1 {
		t.Errorf("%d transcription calls recorded, want 1", n)
	}
	if n := h.Count(`SELECT count(*) FROM events WHERE type = 'message_received' AND payload->>'kind' = 'voice'`); n != 1 {
		t.Errorf("the voice message's arrival is not recorded as one")
	}
	// A recording sent as a file is heard too.
	memo := h.TG.AddFile("docs/memo.m4a", []byte("call the bank"))
	if got := h.Expect(jane.ID, func() int64 {
		return h.TG.SendMedia(jane, "document", telegramfake.DocumentOf(memo, "memo.m4a", "audio/mp4"), "")
	}).Text; got != "🎙 I heard: “call the bank”" {
		t.Fatalf("an audio file answered %q first", got)
	}
	h.WaitIdle()
	if heard := h.LLM.Transcriptions(); len(heard) != 2 || heard[1].FileName != "memo.m4a" || string(heard[1].Audio) != "call the bank" {
		t.Errorf("the audio file's transcription request: %+v", heard[len(heard)-1])
	}
	if last := h.TG.Messages(jane.ID); last[len(last)-1].Text != "echo: [audio] call the bank" {
		t.Errorf("the audio file was answered %q", last[len(last)-1].Text)
	}
}

// imagesOf returns the bytes of the images of a request's user messages.
func imagesOf(t *testing.T, req openai.ChatCompletionRequest) [][]byte {
	t.Helper()
	var out [][]byte
	for _, m := range req.Messages {
		for _, p := range m.MultiContent {
			if p.Type != openai.ChatMessagePartTypeImageURL {
				continue
			}
			url, ok := strings.CutPrefix(p.ImageURL.URL, "data:image/jpeg;base64,")
			if !ok {
				t.Fatalf("an image that is not a JPEG data URL: %.40s", p.ImageURL.URL)
			}
			data, err := base64.StdEncoding.DecodeString(url)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, data)
		}
	}
	return out
}

// A photo with a caption reaches the model as an image part whose bytes
// are its largest size, with the caption as text; a follow-up question
// still shows it (IMAGE_HISTORY=2: the photo's message and the question),
// and the turn after that shows only its marker.
func TestAPhotoReachesTheModelAndStaysWithinImageHistory(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	small := h.TG.AddFile("photos/s.jpg", []byte("\xff\xd8\xff small"))
	medium := h.TG.AddFile("photos/m.jpg", []byte("\xff\xd8\xff medium size"))
	largeBytes := append([]byte("\xff\xd8\xff"), bytes.Repeat([]byte("large "), 500)...)
	large := h.TG.AddFile("photos/l.jpg", largeBytes)
	sizes := telegramfake.PhotoSizes(small, medium, large)

	if got := h.Expect(jane.ID, func() int64 { return h.TG.SendMedia(jane, "photo", sizes, "what is this?") }).Text; got != "echo: [photo] what is this?" {
		t.Fatalf("photo answered %q", got)
	}
	reqs := h.LLM.Requests()
	if imgs := imagesOf(t, reqs[0]); len(imgs) != 1 || !bytes.Equal(imgs[0], largeBytes) {
		t.Fatalf("the model got %d images; want one, the largest size", len(imgs))
	}
	last := reqs[0].Messages[len(reqs[0].Messages)-1]
	if last.MultiContent[0].Type != openai.ChatMessagePartTypeText || !strings.HasSuffix(last.MultiContent[0].Text, "[photo] what is this?") {
		t.Errorf("the caption is not the text of the image's message: %+v", last.MultiContent[0])
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'user' AND content LIKE '%] [photo] what is this?'
		AND metadata->'media'->0->>'file_id' = $1 AND (metadata->'media'->0->>'width')::int = 800`, large.FileID); n != 1 {
		t.Errorf("the photo's row does not keep the caption, the marker and the file id")
	}
	// The fake server counts an image as nothing; the daily tokens count
	// it as request.TokensPerImage at least.
	if n := h.Count(`SELECT count(*) FROM llm_calls WHERE telegram_user_id = $1 AND prompt_tokens >= $2`, jane.ID, request.TokensPerImage); n != 1 {
		t.Errorf("%d model calls count the image's %d tokens, want 1", n, request.TokensPerImage)
	}

	h.Say(jane, "and what color is it?")
	if imgs := imagesOf(t, h.LLM.Requests()[1]); len(imgs) != 1 || !bytes.Equal(imgs[0], largeBytes) {
		t.Fatalf("the follow-up carried %d images, want the photo again", len(imgs))
	}
	h.Say(jane, "thanks")
	req := h.LLM.Requests()[2]
	if imgs := imagesOf(t, req); len(imgs) != 0 {
		t.Fatalf("past IMAGE_HISTORY the request still carried %d images", len(imgs))
	}
	if !strings.Contains(req.Messages[1].Content, "[photo] what is this?") {
		t.Errorf("past IMAGE_HISTORY the photo's marker is gone: %q", req.Messages[1].Content)
	}
	// Only the largest size was ever fetched: once for the photo, once again for the follow-up.
	downloads := h.TG.Calls(telegramfake.DownloadMethod)
	if len(downloads) != 2 || downloads[0].Params["file_path"] != large.Path || downloads[1].Params["file_path"] != large.Path {
		t.Errorf("downloads: %+v", downloads)
	}
}

// An album (photos sharing a media_group_id) is one turn: one model call
// that shows every photo, one answer.
func TestAnAlbumIsAnsweredAsOneTurn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	first := h.TG.AddFile("photos/a.jpg", []byte("\xff\xd8\xff first"))
	second := h.TG.AddFile("photos/b.jpg", []byte("\xff\xd8\xff second"))
	album := func(f telegramfake.FileRef, caption string) int64 {
		m := telegramfake.Media(jane.ID, "private", jane, "photo", telegramfake.PhotoSizes(f), caption)
		m["media_group_id"] = "album-1"
		return h.TG.AddUpdate("message", m)
	}
	album(first, "compare these")
	h.WaitDone(album(second, ""))
	h.WaitIdle()
	reqs := h.LLM.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the album made %d model calls, want 1", len(reqs))
	}
	if imgs := imagesOf(t, reqs[0]); len(imgs) != 2 || string(imgs[0]) != "\xff\xd8\xff first" || string(imgs[1]) != "\xff\xd8\xff second" {
		t.Fatalf("the album's request carried %d images", len(imgs))
	}
	if msgs := h.TG.Messages(jane.ID); len(msgs) != 1 {
		t.Fatalf("the album got %d answers, want 1: %+v", len(msgs), msgs)
	}
}

// A model that cannot see (the server refuses images) gets the caption and
// a note instead; the refusal is learned, and the user is told why the
// model did not look, with no error and no loop.
func TestANonVisionModelGetsTheCaptionAndTheUserIsTold(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.LLM = openaifake.NewDialect(openaifake.DialectNamed("vllm"))
	t.Cleanup(h.LLM.Close)
	h.Env["OPENAI_BASE_URL"] = h.LLM.URL()
	h.Start()
	photo := telegramfake.PhotoSizes(h.TG.AddFile("photos/p.jpg", []byte("\xff\xd8\xff jpeg")))
	refusals := 0
	for i, caption := range []string{"what is this?", "and this?"} {
		got := h.Expect(jane.ID, func() int64 { return h.TG.SendMedia(jane, "photo", photo, caption) }).Text
		if !strings.Contains(got, "[photo] "+caption) || !strings.Contains(got, "cannot see images") {
			t.Fatalf("photo %d answered %q", i+1, got)
		}
		if i == 0 {
			refusals = h.LLM.Refusals() // the tools, then the image (this server takes neither)
		}
	}
	if n := h.LLM.Refusals(); n != refusals || n != 2 {
		t.Errorf("the server refused %d requests, want 2, both for the first photo (the refusal is learned)", n)
	}
	if n := h.Count(`SELECT count(*) FROM updates WHERE error IS NOT NULL`); n != 0 {
		t.Errorf("%d updates failed", n)
	}
}

// A text file and a PDF reach the model with their names; a file past
// FILE_CHARS is cut with a visible note; an unsupported file gets an
// answer naming what is supported, and is not downloaded.
func TestDocumentsAreReadAndGivenToTheModel(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["FILE_CHARS"] = "500"
	h.Start()
	notes := h.TG.AddFile("docs/notes.md", []byte("# Plan\n\nShip the release on Friday."))
	got := h.Expect(jane.ID, func() int64 {
		return h.TG.SendMedia(jane, "document", telegramfake.DocumentOf(notes, "notes.md", "text/markdown"), "summarize")
	}).Text
	if !strings.Contains(got, "[file notes.md] summarize") || !strings.Contains(got, "Ship the release on Friday.") {
		t.Fatalf("the text file answered %q", got)
	}

	if content := fileToModel(h, jane, "report.pdf", "application/pdf", testkit.PDF("Quarterly revenue was 42 million")); !strings.Contains(content, "[file report.pdf]") ||
		!strings.Contains(content, "Quarterly revenue was 42 million") {
		t.Fatalf("the model got %q for the PDF", content)
	}
	long := []byte(strings.Repeat("line of the log\n", 100))
	if content := fileToModel(h, jane, "long.log", "text/plain", long); !strings.Contains(content, "[The file is cut here: only its first 500 characters are shown.]") {
		t.Fatalf("the long file has no visible cut: %q", content)
	}

	downloads := len(h.TG.Calls(telegramfake.DownloadMethod))
	exe := h.TG.AddFile("docs/setup.exe", []byte("MZ\x90\x00"))
	got = h.Expect(jane.ID, func() int64 {
		return h.TG.SendMedia(jane, "document", telegramfake.DocumentOf(exe, "setup.exe", "application/x-msdownload"), "")
	}).Text
	if !strings.HasPrefix(got, "I cannot read setup.exe.") || !strings.Contains(got, "PDFs") {
		t.Fatalf("the unsupported file answered %q", got)
	}
	if n := len(h.TG.Calls(telegramfake.DownloadMethod)); n != downloads {
		t.Errorf("the unsupported file was downloaded")
	}
}

// A PDF built to exhaust its reader (one string of 512 MB, 3.4 MB of
// file) gets a clear answer, and the bot goes on as before: the next
// message is answered. A page showing one compressed stream 200 times
// reaches the model cut at FILE_CHARS, with the note.
func TestAHostilePDFGetsAClearAnswerAndTheChatGoesOn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["FILE_CHARS"] = "500"
	h.Start()
	bomb := h.TG.AddFile("docs/bomb.pdf", testkit.HugeStringPDF(512<<20))
	got := h.Expect(jane.ID, func() int64 {
		return h.TG.SendMedia(jane, "document", telegramfake.DocumentOf(bomb, "bomb.pdf", "application/pdf"), "")
	}).Text
	if !strings.HasPrefix(got, "I stopped reading bomb.pdf:") {
		t.Fatalf("the hostile PDF answered %q", got)
	}
	if got := h.Say(jane, "hello"); got != "echo: hello" {
		t.Fatalf("the message after the hostile PDF answered %q", got)
	}

	repeated := testkit.RepeatedStreamPDF("BT /F1 12 Tf (All work and no play.) Tj ET\n", 12000, 200)
	if content := fileToModel(h, ivan, "jack.pdf", "application/pdf", repeated); !strings.Contains(content, "All work and no play.") ||
		!strings.Contains(content, "[The file is cut here: only its first 500 characters are shown.]") {
		t.Fatalf("the model got %q for the repeated stream", content)
	}
}

// fileToModel sends data as a document named name from a user, and
// returns what the model got for it.
func fileToModel(h *harness, from telegramfake.User, name, mimeType string, data []byte) string {
	h.T.Helper()
	file := h.TG.AddFile("docs/"+name, data)
	h.Expect(from.ID, func() int64 {
		return h.TG.SendMedia(from, "document", telegramfake.DocumentOf(file, name, mimeType), "")
	})
	reqs := h.LLM.Requests()
	return openaifake.LastUserContent(reqs[len(reqs)-1])
}

// A stranger's photo, voice message and file are never fetched: the gate
// runs before any download.
func TestAStrangersMediaIsNeverDownloaded(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["ALLOWED_USER_IDS"] = "502"
	h.Start()
	photo := telegramfake.PhotoSizes(h.TG.AddFile("photos/p.jpg", []byte("\xff\xd8\xff jpeg")))
	voice := telegramfake.Voice(h.TG.AddFile("voice/v.oga", []byte("hello")), 1)
	h.Expect(ivan.ID, func() int64 { return h.TG.SendMedia(ivan, "photo", photo, "look") })
	h.WaitDone(h.TG.SendMedia(ivan, "voice", voice, ""))
	h.WaitIdle()
	if n := len(h.TG.Calls("getFile")) + len(h.TG.Calls(telegramfake.DownloadMethod)); n != 0 {
		t.Fatalf("%d getFile or download calls for a stranger", n)
	}
	if n := len(h.LLM.Transcriptions()) + len(h.LLM.Requests()); n != 0 {
		t.Fatalf("the model servers were asked %d times for a stranger", n)
	}
}

// Files count against the limits: past RATE_LIMIT_PER_MINUTE a voice
// message is stopped before it is fetched, and so is everything past
// DAILY_TOKEN_LIMIT, which transcriptions count towards.
func TestMediaCountsAgainstTheLimits(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["RATE_LIMIT_PER_MINUTE"] = "1"
	h.Start()
	voice := telegramfake.Voice(h.TG.AddFile("voice/v.oga", []byte("hello there")), 1)
	h.Expect(jane.ID, func() int64 { return h.TG.SendMedia(jane, "voice", voice, "") })
	downloads := len(h.TG.Calls(telegramfake.DownloadMethod))
	if got := h.Expect(jane.ID, func() int64 { return h.TG.SendMedia(jane, "voice", voice, "") }).Text; !strings.Contains(got, "at most 1 message a minute") {
		t.Fatalf("the second voice message in a minute answered %q", got)
	}
	if n := len(h.TG.Calls(telegramfake.DownloadMethod)); n != downloads || len(h.LLM.Transcriptions()) != 1 {
		t.Errorf("a voice message over the rate limit was fetched or transcribed")
	}

	tokens := newHarness(t)
	tokens.Env["DAILY_TOKEN_LIMIT"] = "1"
	tokens.Start()
	voice = telegramfake.Voice(tokens.TG.AddFile("voice/v.oga", []byte("hello there")), 1)
	tokens.Expect(jane.ID, func() int64 { return tokens.TG.SendMedia(jane, "voice", voice, "") })
	if got := tokens.Expect(jane.ID, func() int64 { return tokens.TG.SendMedia(jane, "voice", voice, "") }).Text; !strings.Contains(got, "limit of 1 token") {
		t.Fatalf("over the token limit a voice message answered %q", got)
	}
	if n := len(tokens.LLM.Transcriptions()); n != 1 {
		t.Errorf("%d transcriptions, want 1 (the second voice message is over the limit)", n)
	}
}

// /voice: the chat's answers are also spoken (/v1/audio/speech) and sent as
// a voice message after the text, replying to it; /voice again stops it.
// Off by default; without TTS_MODEL, /voice says so.
func TestVoiceRepliesAreToggledPerChat(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	h.Say(jane, "no voice yet")
	if got := h.Say(jane, "/voice"); !strings.HasPrefix(got, "🔊") {
		t.Fatalf("/voice answered %q", got)
	}
	answer := h.Say(jane, "speak to me")
	h.WaitIdle()
	voices := h.TG.Voices()
	if len(voices) != 1 || string(voices[0].Audio) != openaifake.SpokenPrefix+answer || voices[0].ChatID != jane.ID ||
		voices[0].ReplyTo != h.TG.Messages(jane.ID)[len(h.TG.Messages(jane.ID))-1].ID {
		t.Fatalf("voices sent: %+v", voices)
	}
	speech := h.LLM.Speeches()
	if len(speech) != 1 || speech[0].Model != "tts-1" || speech[0].Voice != "alloy" || speech[0].Format != "opus" || speech[0].Input != answer {
		t.Fatalf("speech requests: %+v", speech)
	}
	// What is said counts agent.TokensPer1000SpeechChars, rounded up.
	if n := h.Count(`SELECT count(*) FROM llm_calls WHERE purpose = 'speech' AND prompt_tokens = $1`,
		(len(answer)*agent.TokensPer1000SpeechChars+999)/1000); n != 1 {
		t.Errorf("%d speech calls recorded at %d tokens for %d characters, want 1", n, (len(answer)*agent.TokensPer1000SpeechChars+999)/1000, len(answer))
	}
	if got := h.Say(jane, "/voice"); !strings.HasPrefix(got, "🔇") {
		t.Fatalf("/voice again answered %q", got)
	}
	h.Say(jane, "quiet now")
	h.WaitIdle()
	if n := len(h.TG.Voices()); n != 1 {
		t.Errorf("%d voice messages after /voice turned them off, want 1", n)
	}
	// Another chat was never asked: its answers stay text.
	h.Say(ivan, "привет")
	h.WaitIdle()
	if n := len(h.TG.Voices()); n != 1 {
		t.Errorf("another chat got voice answers")
	}

	// An answer that takes its user to DAILY_TOKEN_LIMIT is not spoken:
	// speech is a paid call too.
	limited := newHarness(t)
	limited.Env["DAILY_TOKEN_LIMIT"] = "1"
	limited.Start()
	limited.Say(jane, "/voice")
	limited.Say(jane, "speak to me")
	limited.WaitIdle()
	if n := len(limited.TG.Voices()) + len(limited.LLM.Speeches()); n != 0 {
		t.Errorf("an answer past the day's tokens was spoken (%d voice messages and speech requests)", n)
	}

	off := newHarness(t)
	off.Env["TTS_MODEL"] = ""
	off.Start()
	if got := off.Say(jane, "/voice"); !strings.Contains(got, "TTS_MODEL") {
		t.Fatalf("/voice without TTS_MODEL answered %q", got)
	}
}

// Voice messages that lie about themselves, each claiming a second and
// 1,000 bytes, against DAILY_TOKEN_LIMIT=3000. Twelve that are served as
// 10 MiB are cut at the size said (plus its margin): none is transcribed
// or counted, each sender is told the file could not be read. Twelve that
// are served as recordings of 30 s within the margin are counted by what
// was downloaded, 30 s at agent.TokensPerAudioSecond each, whatever the
// server says; once fewer tokens are left than a recording counts, the
// next one is refused before it is transcribed, and once the day's tokens
// reach the limit, before its download, with the usual over-limit text.
func TestLyingVoiceMessagesAreCountedByWhatWasDownloaded(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["DAILY_TOKEN_LIMIT"] = "3000"
	h.LLM.Hear(func([]byte) (string, float64) { return "what did I say?", 0 }) // a server that says no length
	h.Start()
	unreadable := "I could not read the file: it seems damaged, or is not what its name says."
	for i := range 12 {
		f := h.TG.AddFileOfSize(fmt.Sprintf("voice/big-%d.oga", i), telegramfake.OggOpus(600, 10<<20), 1000)
		if got := h.Expect(jane.ID, func() int64 { return h.TG.SendMedia(jane, "voice", telegramfake.Voice(f, 1), "") }).Text; got != unreadable {
			t.Fatalf("a voice message of 10 MiB said to be 1,000 bytes was answered %q", got)
		}
	}
	if n := len(h.LLM.Transcriptions()) + len(h.LLM.Requests()); n != 0 {
		t.Fatalf("the model servers were asked %d times for files larger than said", n)
	}
	if n := h.Count(`SELECT count(*) FROM llm_calls`); n != 0 {
		t.Fatalf("%d model calls recorded for files never used", n)
	}

	recording := telegramfake.OggOpus(30, 20000)
	served, tooLong, refused := 0, 0, 0
	for i := range 12 {
		tokens := h.Count(`SELECT coalesce(sum(prompt_tokens + completion_tokens), 0) FROM llm_calls WHERE telegram_user_id = $1`, jane.ID)
		downloads := len(h.TG.Calls(telegramfake.DownloadMethod))
		f := h.TG.AddFileOfSize(fmt.Sprintf("voice/long-%d.oga", i), recording, 1000)
		got := h.Expect(jane.ID, func() int64 { return h.TG.SendMedia(jane, "voice", telegramfake.Voice(f, 1), "") }).Text
		h.WaitIdle()
		heard := len(h.LLM.Transcriptions())
		switch cost := 30 * agent.TokensPerAudioSecond; {
		case tokens >= 3000:
			refused++
			if !strings.HasPrefix(got, "You have used today's limit of 3000 tokens.") {
				t.Fatalf("voice message %d, with %d tokens used, was answered %q", i+1, tokens, got)
			}
			if n := len(h.TG.Calls(telegramfake.DownloadMethod)); n != downloads {
				t.Fatalf("voice message %d over the limit was downloaded", i+1)
			}
			continue
		case 3000-tokens < cost:
			// Fewer tokens left than the recording, as read from its bytes,
			// would count: it is not transcribed.
			tooLong++
			want := fmt.Sprintf("This recording lasts 0:30 and would count %d tokens, but you have %d left today.", cost, 3000-tokens)
			if !strings.HasPrefix(got, want) {
				t.Fatalf("voice message %d, with %d tokens used, was answered %q, want %q", i+1, tokens, got, want)
			}
			if n := len(h.LLM.Transcriptions()); n != heard {
				t.Fatalf("voice message %d, longer than the tokens left, was transcribed", i+1)
			}
			continue
		}
		served++
		if got != "🎙 I heard: “what did I say?”" {
			t.Fatalf("voice message %d, with %d tokens used, was answered %q", i+1, tokens, got)
		}
	}
	t.Logf("lying voice messages: %d served, %d refused as longer than the tokens left, %d refused at the limit", served, tooLong, refused)
	if served < 2 || tooLong == 0 {
		t.Fatalf("%d voice messages served and %d refused as too long; want the tokens left to run short after a few", served, tooLong)
	}
	heard := h.LLM.Transcriptions()
	if len(heard) != served {
		t.Fatalf("%d transcriptions for %d voice messages served", len(heard), served)
	}
	for _, tr := range heard {
		if !bytes.Equal(tr.Audio, recording) {
			t.Fatalf("the transcription endpoint got %d bytes, want the %d downloaded", len(tr.Audio), len(recording))
		}
	}
	if n := h.Count(`SELECT count(*) FROM llm_calls WHERE purpose = 'transcription' AND telegram_user_id = $1
		AND abs(audio_seconds - 30) < 0.01 AND prompt_tokens = $2`, jane.ID, 30*agent.TokensPerAudioSecond); n != served {
		t.Errorf("%d transcriptions recorded as 30 s and %d tokens, want %d", n, 30*agent.TokensPerAudioSecond, served)
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'user' AND content LIKE '%[voice 0:30] what did I say?'
		AND (metadata->'media'->0->>'duration')::int = 30 AND (metadata->'media'->0->>'file_size')::int = $1`, len(recording)); n != served {
		t.Errorf("%d user rows say the recording's downloaded length and size, want %d", n, served)
	}
}
