package bot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/wait"
	"github.com/sashabaranov/go-openai"
)

// /image draws its prompt with IMAGE_MODEL (/v1/images/generations), sends
// the picture as a photo replying to the command, counts it in llm_calls
// at IMAGE_TOKENS, and keeps the exchange: the command as the user's row,
// and an assistant row whose metadata names the photo by its Telegram
// file ids, which the model reads on later turns as its marker. Inline and
// url answers both reach the chat.
func TestAPictureIsDrawnSentAndKept(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["IMAGE_MODEL"] = "gpt-image-1"
	h.Start()
	h.WaitDone(h.TG.SendText(jane, "/image a red cat"))
	photos := h.TG.Photos()
	if len(photos) != 1 || photos[0].ChatID != jane.ID || photos[0].ReplyTo == 0 || !bytes.Equal(photos[0].Image, openaifake.DefaultPicture) {
		t.Fatalf("photos sent: %d %+v", len(photos), photos)
	}
	if reqs := h.LLM.ImageRequests(); len(reqs) != 1 || reqs[0].Model != "gpt-image-1" || reqs[0].Prompt != "a red cat" || reqs[0].N != 1 {
		t.Fatalf("image requests: %+v", reqs)
	}
	if n := h.Count(`SELECT count(*) FROM llm_calls l JOIN messages m USING (conversation_id) WHERE l.purpose = 'image'
		AND l.model = 'gpt-image-1' AND l.prompt_tokens = 16000 AND l.status = 'ok' AND l.telegram_user_id = $1 AND m.role = 'assistant'`, jane.ID); n != 1 {
		t.Errorf("%d image calls counted at 16000 tokens, want 1", n)
	}
	var content string
	var meta []byte
	var shownAs int64
	if err := h.DB.QueryRow(context.Background(), `SELECT content, metadata, telegram_message_id FROM messages
		WHERE role = 'assistant'`).Scan(&content, &meta, &shownAs); err != nil {
		t.Fatal(err)
	}
	var m struct {
		Media []struct {
			Kind     string `json:"kind"`
			FileID   string `json:"file_id"`
			MimeType string `json:"mime_type"`
		} `json:"media"`
		Images []struct{ Model, Prompt string } `json:"images"`
	}
	if err := json.Unmarshal(meta, &m); err != nil {
		t.Fatal(err)
	}
	if content != "[picture] a red cat" || shownAs != photos[0].MessageID || len(m.Media) != 1 || len(m.Images) != 1 {
		t.Fatalf("the assistant row: %q, message %d, metadata %s", content, shownAs, meta)
	}
	if md := m.Media[0]; md.Kind != "image" || md.FileID != photos[0].File.FileID || md.MimeType != "image/png" || m.Images[0].Prompt != "a red cat" {
		t.Fatalf("its metadata: %s", meta)
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'user' AND content LIKE '%/image a red cat'`); n != 1 {
		t.Errorf("%d user rows of the command, want 1", n)
	}

	h.LLM.ImageAnswers(openaifake.AnswerURL)
	h.LLM.RevisePrompts("a red cat on a blue mat")
	h.WaitDone(h.TG.SendText(jane, "/image a red cat again"))
	if photos := h.TG.Photos(); len(photos) != 2 || !bytes.Equal(photos[1].Image, openaifake.DefaultPicture) {
		t.Fatalf("after a url answer, %d photos", len(photos))
	}
	h.Say(jane, "what did you draw?")
	last := h.LLM.Requests()[len(h.LLM.Requests())-1]
	var seen []string
	for _, msg := range last.Messages {
		if msg.Role == "assistant" {
			seen = append(seen, msg.Content)
		}
	}
	// The prompt the server revised is its text, not the bot's: the model
	// reads the prompt asked for, and the row's metadata keeps the other.
	if strings.Join(seen, "|") != "[picture] a red cat|[picture] a red cat again" {
		t.Fatalf("the model read the pictures as %q", seen)
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'assistant' AND metadata->'images'->0->>'revised_prompt' = 'a red cat on a blue mat'`); n != 1 {
		t.Fatalf("%d rows keep the revised prompt in their metadata", n)
	}
}

// Two refusals of /image through the wiring: pictures off (IMAGE_MODEL
// empty) is an answer, and an image server that fails is an answer with
// the failed call recorded, counting no tokens. The other refusals (no
// prompt, a prompt too long, past the day's tokens) are bot/draw's
// TestRefusalsAreToldInWords; past the day's tokens through the wiring is
// TestPicturesAskedForAtOnceSpendTheDayOnce.
func TestImageRequestsAreRefusedClearly(t *testing.T) {
	t.Parallel()
	off := newHarness(t)
	off.Start()
	if got := off.Say(jane, "/image a red cat"); !strings.Contains(got, "IMAGE_MODEL") {
		t.Fatalf("/image with pictures off answered %q", got)
	}

	h := newHarness(t)
	h.Env["IMAGE_MODEL"] = "dall-e-3"
	h.LLM.FailImages(500)
	h.Start()
	if got := h.Say(ivan, "/image кот"); !strings.HasPrefix(got, "Не получилось нарисовать") {
		t.Fatalf("/image with the image server failing answered %q", got)
	}
	if n := h.Count(`SELECT count(*) FROM llm_calls WHERE purpose = 'image' AND status = '500' AND prompt_tokens = 0 AND telegram_user_id = $1`, ivan.ID); n != 1 {
		t.Errorf("%d failed image calls recorded at 0 tokens, want 1", n)
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'assistant'`); n != 0 {
		t.Errorf("%d assistant rows, want none: no picture was drawn", n)
	}
}

// /image sent at once in a private chat and four groups, with the day's
// tokens enough for one picture: one is drawn, the other four are refused
// in words, and the day counts one picture. Each reserves its tokens in
// the statement that checks the day, so none of them can spend tokens
// another is about to.
func TestPicturesAskedForAtOnceSpendTheDayOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["IMAGE_MODEL"] = "gpt-image-1"
	h.Env["IMAGE_TOKENS"] = "16000"
	h.Env["DAILY_TOKEN_LIMIT"] = "20000"
	h.LLM.SlowImages(300 * time.Millisecond) // the requests overlap while drawn
	h.Start()
	chats := []int64{jane.ID, -100901, -100902, -100903, -100904}
	var updates []int64
	for _, chat := range chats {
		kind := "supergroup"
		if chat > 0 {
			kind = "private"
		}
		updates = append(updates, h.TG.SendMessage(chat, kind, jane, "/image@"+h.TG.Username+" a red cat"))
	}
	for _, u := range updates {
		h.WaitDone(u)
	}
	if n, photos := len(h.LLM.ImageRequests()), len(h.TG.Photos()); n != 1 || photos != 1 {
		t.Fatalf("%d image requests and %d photos, want 1 of each", n, photos)
	}
	refused := 0
	for _, chat := range chats {
		for _, m := range h.TG.Messages(chat) {
			if strings.Contains(m.Text, "counts 16000 tokens") {
				refused++
			}
		}
	}
	if refused != 4 {
		t.Fatalf("%d chats were told the day's tokens are short, want 4", refused)
	}
	if n := h.Count(`SELECT coalesce(sum(total_tokens), 0)::int FROM llm_calls WHERE telegram_user_id = $1`, jane.ID); n != 16000 {
		t.Fatalf("%d tokens counted, want one picture's 16000", n)
	}
}

// The model draws with generate_image: the photo reaches the chat before
// the answer's text, the model reads that it was sent, and the answer's
// row names the photo in its metadata as /image's does. Three pictures a
// turn at most; one past the day's tokens is refused to the model (which
// tells the user) without asking the image server.
func TestTheModelDrawsWithGenerateImage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["IMAGE_MODEL"] = "gpt-image-1"
	h.Env["IMAGE_TOKENS"] = "10000"
	h.Start()
	draw := func(id, prompt string) openai.ToolCall {
		return openaifake.ToolCall(id, "generate_image", `{"prompt": "`+prompt+`"}`)
	}
	h.LLM.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{draw("c1", "a red cat"), draw("c2", "a blue cat"),
		draw("c3", "a green cat"), draw("c4", "a fourth cat")}}, openaifake.Reply{Content: "Here are your cats."})
	if got := h.Say(jane, "draw me cats"); got != "Here are your cats." {
		t.Fatalf("the answer: %q", got)
	}
	photos := h.TG.Photos()
	if len(photos) != 3 || len(h.LLM.ImageRequests()) != 3 {
		t.Fatalf("%d photos and %d image requests, want 3 (the fourth call is over the turn's bound)", len(photos), len(h.LLM.ImageRequests()))
	}
	if answer := h.TG.Messages(jane.ID); answer[len(answer)-1].ID < photos[2].MessageID {
		t.Errorf("the text came before the pictures")
	}
	results := map[string]string{}
	for _, m := range h.LLM.Requests()[1].Messages {
		if m.Role == "tool" {
			results[m.ToolCallID] = m.Content
		}
	}
	if !strings.HasPrefix(results["c1"], "The picture was drawn and sent") || !strings.Contains(results["c4"], "at most 3 pictures") {
		t.Fatalf("the model read %q", results)
	}
	var files []string
	rows, err := h.DB.Query(context.Background(), `SELECT m->>'file_id' FROM messages, jsonb_array_elements(metadata->'media') m
		WHERE role = 'assistant' AND content = 'Here are your cats.' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var f string
		rows.Scan(&f)
		files = append(files, f)
	}
	if want := []string{photos[0].File.FileID, photos[1].File.FileID, photos[2].File.FileID}; strings.Join(files, ",") != strings.Join(want, ",") {
		t.Fatalf("the answer row names %v, want %v", files, want)
	}
	if n := h.Count(`SELECT count(*) FROM llm_calls WHERE purpose = 'image' AND prompt_tokens = 10000 AND conversation_id IS NOT NULL`); n != 3 {
		t.Errorf("%d image calls counted, want 3", n)
	}

	// Under DAILY_TOKEN_LIMIT a turn may still ask for a picture that
	// would go past it: refused to the model, the image server not asked.
	limited := newHarness(t)
	limited.Env["IMAGE_MODEL"] = "gpt-image-1"
	limited.Env["IMAGE_TOKENS"] = "10000"
	limited.Env["DAILY_TOKEN_LIMIT"] = "15000"
	limited.Start()
	limited.LLM.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{draw("c1", "кот"), draw("c2", "ещё кот")}},
		openaifake.Reply{Content: "Второго кота — завтра."})
	if got := limited.Say(ivan, "нарисуй двух котов"); got != "Второго кота — завтра." {
		t.Fatalf("the answer: %q", got)
	}
	if n, photos := len(limited.LLM.ImageRequests()), len(limited.TG.Photos()); n != 1 || photos != 1 {
		t.Fatalf("%d image requests and %d photos, want 1 of each (the second picture is past the day's tokens)", n, photos)
	}
	var second string
	for _, m := range limited.LLM.Requests()[1].Messages {
		if m.ToolCallID == "c2" {
			second = m.Content
		}
	}
	if !strings.Contains(second, "tokens left today do not cover a picture") {
		t.Fatalf("the model read %q", second)
	}
}

// A picture is drawn (and billed) once per update. The bot stopped while
// /image's photo was on its way when the bot stopped, as a crash would
// stop it: the picture had been kept before it was sent, and the update,
// handled again after the restart, sends the kept picture: it is not
// drawn again, the tokens are counted once, and the exchange is kept.
func TestAPictureInterruptedByARestartIsNotDrawnTwice(t *testing.T) {
	t.Parallel()
	h := picturesUntilARestart(t, map[string]string{"DAILY_TOKEN_LIMIT": "20000"}) // one picture a day (16,000 tokens)
	h.restartWhileSending(h.TG.SendText(jane, "/image a red cat"))
	if n := len(h.LLM.ImageRequests()); n != 1 {
		t.Fatalf("%d image requests, want 1: the update handled again drew again", n)
	}
	if n := h.Count(`SELECT count(*) FROM llm_calls WHERE purpose = 'image' AND prompt_tokens > 0`); n != 1 {
		t.Errorf("%d image calls billed, want 1", n)
	}
	photos := h.TG.Photos()
	if len(photos) == 0 || photos[len(photos)-1].ChatID != jane.ID || !bytes.Equal(photos[len(photos)-1].Image, openaifake.DefaultPicture) {
		t.Fatalf("after the restart the kept picture should be sent: %d photos", len(photos))
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'assistant' AND content = '[picture] a red cat'`); n != 1 {
		t.Fatalf("%d assistant rows keep the picture, want 1", n)
	}
	if n := h.Count(`SELECT count(*) FROM drawn_pictures`); n != 0 {
		t.Fatalf("%d pictures still kept after they were sent", n)
	}
	// A new /image is a new message: the day's tokens decide, as always.
	if got := h.Say(jane, "/image a red cat"); !strings.Contains(got, "16000 tokens") {
		t.Fatalf("a new /image past the day's tokens answered %q", got)
	}
	if n := len(h.LLM.ImageRequests()); n != 1 {
		t.Fatalf("%d image requests after a new /image past the day's tokens, want 1", n)
	}
}

// The model's pictures keep to 3 a message across restarts: a turn that
// drew one before the bot stopped, run again, may draw two more, and the
// model reads why a fourth is refused.
func TestGenerateImageKeepsToThreeAMessageAcrossARestart(t *testing.T) {
	t.Parallel()
	h := picturesUntilARestart(t, nil)
	draw := func(id, prompt string) openai.ToolCall {
		return openaifake.ToolCall(id, "generate_image", `{"prompt": "`+prompt+`"}`)
	}
	h.LLM.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{draw("c1", "a red cat")}},
		openaifake.Reply{ToolCalls: []openai.ToolCall{draw("c2", "a blue cat"), draw("c3", "a green cat"), draw("c4", "a grey cat")}},
		openaifake.Reply{Content: "Here are your cats."})
	h.restartWhileSending(h.TG.SendText(jane, "draw me cats"))
	if n, photos := len(h.LLM.ImageRequests()), len(h.TG.Photos()); n != 3 || photos != 2 {
		t.Fatalf("%d image requests and %d photos, want 3 and 2 (one drawn before the restart, not sent)", n, photos)
	}
	var fourth string
	for _, m := range h.LLM.Requests()[len(h.LLM.Requests())-1].Messages {
		if m.ToolCallID == "c4" {
			fourth = m.Content
		}
	}
	if !strings.Contains(fourth, "drawn already") {
		t.Fatalf("the model read %q for the fourth picture", fourth)
	}
}

// restarts is a harness whose bot draws pictures, and whose first photo
// is held on its way until the test ends (restartWhileSending).
type restarts struct{ *harness }

// picturesUntilARestart starts a bot with the settings env that draws
// pictures and abandons its turns at a stop, as a crash would
// (SHUTDOWN_TIMEOUT 10ms). Its first sendPhoto is held (Fault.Hold) until
// the test ends: the stopped bot's upload, which no context cancels, is
// answered then, before the fake closes.
func picturesUntilARestart(t *testing.T, env map[string]string) restarts {
	h := newHarness(t)
	maps.Copy(h.Env, env)
	h.Env["IMAGE_MODEL"] = "gpt-image-1"
	h.Env["SHUTDOWN_TIMEOUT"] = "10ms"
	h.Start()
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	h.TG.Inject(telegramfake.Fault{Method: "sendPhoto", Hold: hold, Times: 1})
	return restarts{h}
}

// restartWhileSending stops the bot once update's picture was drawn and
// its photo is on its way, starts it again, and waits until the update is
// handled.
func (h restarts) restartWhileSending(update int64) {
	h.T.Helper()
	h.WaitCount(`SELECT count(*) FROM llm_calls WHERE purpose = 'image' AND status = 'ok'`, 1)
	h.TG.WaitCall("sendPhoto", wait.Timeout(), func(telegramfake.Call) bool { return true })
	h.Stop()
	h.Start()
	h.WaitDone(update)
}
