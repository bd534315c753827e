package bot_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/internal/testing/telegramfake"
)

func TestNULAndInvalidUTF8AreCleanedAndAnswered(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	// Telegram's JSON may carry \u0000 (PostgreSQL refuses it in text and
	// jsonb) and, from a broken client or proxy, bytes that are not UTF-8.
	raw := "{\"update_id\": 7001, \"message\": {\"message_id\": 1, \"date\": 1, \"chat\": {\"id\": 502, \"type\": \"private\"}," +
		"\"from\": {\"id\": 502, \"is_bot\": false, \"first_name\": \"Ja\\u0000ne\"}, \"text\": \"a\\u0000b c\xffd \\ud800e\"}}"
	got := h.Expect(jane.ID, func() int64 { h.TG.AddRawUpdate(raw); return 7001 }).Text
	if want := "echo: ab c\uFFFDd \uFFFDe"; got != want {
		t.Fatalf("reply = %q, want %q", got, want)
	}
	h.WaitIdle()
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'user' AND content LIKE '%ab c' || chr(65533) || 'd%'`); n != 1 {
		t.Errorf("%d cleaned user rows, want 1", n)
	}
	if n := h.Count(`SELECT count(*) FROM users WHERE telegram_user_id = 502 AND first_name = 'Jane'`); n != 1 {
		t.Errorf("the name with a NUL was not stored cleaned")
	}
	if n := h.Count(`SELECT count(*) FROM updates WHERE update_id = 7001 AND error IS NULL AND state = 'done'`); n != 1 {
		t.Errorf("the update was not handled cleanly")
	}
}

func TestATextOfTheMaximumLengthIsStoredWholeAndAnsweredInParts(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	// 4096 UTF-16 units, as Telegram counts: 48 emoji (two units each) and 4000 letters.
	text := strings.Repeat("😀", 48) + strings.Repeat("я", 4000)
	if n := len(utf16.Encode([]rune(text))); n != telegram.MaxMessageLength {
		t.Fatalf("test text has %d units", n)
	}
	h.Say(jane, text)
	h.WaitIdle()
	var parts []string
	for _, m := range h.TG.Messages(jane.ID) {
		if n := len(utf16.Encode([]rune(m.Text))); n > telegram.MaxMessageLength {
			t.Errorf("a part has %d units", n)
		}
		parts = append(parts, m.Text)
	}
	if len(parts) != 2 || strings.Join(parts, "") != "echo: "+text {
		t.Fatalf("the answer came in %d parts and is not the whole echo", len(parts))
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'user' AND content LIKE '%] ' || $1`, text); n != 1 {
		t.Errorf("the user row does not hold the whole text")
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'assistant' AND jsonb_array_length(metadata->'telegram_message_ids') = 2`); n != 1 {
		t.Errorf("the answer row does not record both sent parts")
	}
}

func TestMediaEditsBotsAndChannels(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	photo := telegramfake.PhotoSizes(h.TG.AddFile("photo.jpg", []byte("\xff\xd8\xff a small JPEG")))
	media := func(from telegramfake.User, kind string, value any, caption string) func() int64 {
		return func() int64 { return h.TG.SendMedia(from, kind, value, caption) }
	}
	if got := h.Expect(ivan.ID, media(ivan, "photo", photo, "")).Text; got != "echo: [photo]" {
		t.Errorf("photo without caption: %q", got)
	}
	if got := h.Expect(jane.ID, media(jane, "sticker", map[string]any{"file_id": "s", "file_unique_id": "u", "width": 1, "height": 1, "type": "regular"}, "")).Text; !strings.Contains(got, "I understand text, voice messages") {
		t.Errorf("sticker: %q", got)
	}
	if got := h.Expect(ivan.ID, media(ivan, "location", map[string]any{"latitude": 55.7, "longitude": 37.6}, "")).Text; !strings.HasPrefix(got, "Такие сообщения я пока не понимаю") {
		t.Errorf("location: %q", got)
	}
	if got := h.Expect(jane.ID, media(jane, "photo", photo, "what is on it?")).Text; got != "echo: [photo] what is on it?" {
		t.Errorf("photo with caption: %q", got)
	}
	if got := h.Expect(jane.ID, media(jane, "video", map[string]any{"file_id": "v", "file_unique_id": "u", "width": 1, "height": 1, "duration": 3}, "look")).Text; got != "echo: [video] look" {
		t.Errorf("video with caption: %q", got)
	}

	// An edit is answered as a new message, quoting the edited one.
	var first int64
	h.Expect(jane.ID, func() int64 { first = h.TG.SendText(jane, "what is 2+3?"); return first })
	edit := h.Expect(jane.ID, func() int64 {
		m := telegramfake.TextMessage(jane.ID, "private", jane, "what is 2+4?")
		m["message_id"] = first
		m["edit_date"] = 2
		return h.TG.AddUpdate("edited_message", m)
	})
	if edit.Text != "echo: [edited] what is 2+4?" || edit.ReplyTo != first {
		t.Errorf("edit answered %q replying to %d, want the edit answered as a reply to %d", edit.Text, edit.ReplyTo, first)
	}

	// From bots and channels: nothing is answered, the model is not asked.
	calls := len(h.LLM.Requests())
	otherBot := telegramfake.User{ID: 503, IsBot: true, FirstName: "Other", Username: "other_bot"}
	h.TG.SendText(otherBot, "hello, fellow bot")
	channelPost := telegramfake.TextMessage(-1009, "channel", jane, "news")
	delete(channelPost, "from")
	h.TG.AddUpdate("channel_post", channelPost)
	liveLocation := telegramfake.TextMessage(jane.ID, "private", jane, "")
	delete(liveLocation, "text")
	liveLocation["location"] = map[string]any{"latitude": 55.7, "longitude": 37.6}
	h.TG.AddUpdate("edited_message", liveLocation)
	if got := h.Say(jane, "still there?"); got != "echo: still there?" {
		t.Fatalf("next reply = %q", got)
	}
	h.WaitIdle()
	if n := len(h.LLM.Requests()) - calls; n != 1 {
		t.Errorf("the model was asked %d times, want once (only for the last message)", n)
	}
	if sent := h.TG.Messages(otherBot.ID); len(sent) != 0 {
		t.Errorf("answered a bot: %+v", sent)
	}
	if sent := h.TG.Messages(-1009); len(sent) != 0 {
		t.Errorf("answered a channel: %+v", sent)
	}
}

func TestInAGroupTheBotAnswersOnlyWhenAddressed(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	const group = -100777
	bot := "@" + h.TG.Username
	say := func(from telegramfake.User, text string) string { return h.SayIn(group, "supergroup", from, text) }
	quiet := func(from telegramfake.User, text string) { h.TG.SendMessage(group, "supergroup", from, text) }

	quiet(jane, "lunch anyone?")
	if got := say(ivan, bot+" привет"); got != "echo: Иван (@ivan): "+bot+" привет" {
		t.Fatalf("mention answered %q", got)
	}
	quiet(jane, "@other_bot hi")
	quiet(ivan, "/help@other_bot")
	quiet(telegramfake.User{ID: 503, IsBot: true, FirstName: "Other"}, bot+" hi from a bot")

	// A reply to the bot's answer is addressed to it, without a mention.
	answer := h.TG.Sent()[len(h.TG.Sent())-1]
	got := h.Expect(group, func() int64 {
		m := telegramfake.TextMessage(group, "supergroup", jane, "and in English?")
		m["reply_to_message"] = h.TG.BotMessage(answer)
		return h.TG.AddUpdate("message", m)
	})
	if got.Text != "echo: Jane (id 502): and in English?" || got.ReplyTo == 0 {
		t.Fatalf("reply to the bot answered %q (reply_to %d)", got.Text, got.ReplyTo)
	}
	if got := say(jane, "/help@"+h.TG.Username); !strings.Contains(got, "/new") {
		t.Errorf("/help@bot = %q", got)
	}
	if got := say(ivan, "/frobnicate"); !strings.Contains(got, "/help") || !strings.HasPrefix(got, "Такой команды") {
		t.Errorf("unknown command in a group = %q", got)
	}
	h.WaitIdle()

	if n := len(h.TG.Messages(group)); n != 4 {
		t.Errorf("%d messages to the group, want 4 (two answers, help, unknown command)", n)
	}
	if n := h.Count(`SELECT count(*) FROM conversations WHERE chat_id = $1`, group); n != 1 {
		t.Errorf("the group has %d conversations, want 1", n)
	}
	// The second turn saw the first: one conversation, each line signed.
	reqs := h.LLM.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model was asked %d times, want 2", len(reqs))
	}
	var seen []string
	for _, m := range reqs[1].Messages[1:] {
		content := m.Content
		if m.Role == "user" {
			content = content[strings.Index(content, "] ")+2:] // the time stamp
		}
		seen = append(seen, m.Role+": "+content)
	}
	want := fmt.Sprintf("user: Иван (@ivan): %s привет|assistant: echo: Иван (@ivan): %s привет|user: Jane (id 502): and in English?", bot, bot)
	if strings.Join(seen, "|") != want {
		t.Errorf("the model saw\n%s\nwant\n%s", strings.Join(seen, "|"), want)
	}
	if !strings.Contains(reqs[1].Messages[0].Content, "This is a group chat.") {
		t.Errorf("the group's system prompt does not say how authors are shown:\n%s", reqs[1].Messages[0].Content)
	}
	// Who wrote each row is in its metadata, for queries to trust.
	for _, u := range []telegramfake.User{ivan, jane} {
		if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'user' AND (metadata->>'author_id')::bigint = $1`, u.ID); n != 1 {
			t.Errorf("%d user rows name %s as their author, want 1", n, u.FirstName)
		}
	}
}

// An update of an unexpected shape (its id readable, the rest not) is kept
// in the inbox, given up with its error, and confirmed to Telegram: it does
// not come back, and the chat goes on.
func TestAnUpdateOfUnexpectedShapeIsGivenUpAndTheBotGoesOn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	h.TG.AddRawUpdate(`{"update_id": 7002, "message": "not an object"}`)
	if got := h.Say(jane, "still there?"); got != "echo: still there?" {
		t.Fatalf("the next message got %q", got)
	}
	h.WaitIdle()
	if n := h.Count(`SELECT count(*) FROM updates WHERE update_id = 7002 AND state = 'done' AND error LIKE 'decode update%'`); n != 1 {
		t.Fatalf("the odd update is not kept as given up (%d rows)", n)
	}
	if h.TG.Pending() != 0 {
		t.Fatalf("%d updates unconfirmed", h.TG.Pending())
	}
}
