package bot_test

import (
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/telegramfake"
)

// sayInTopic sends a message in a topic of jane's chat, waits until it is
// handled, and returns the answer's message.
func sayInTopic(h *harness, thread int64, text string) telegramfake.Message {
	h.T.Helper()
	return h.Expect(jane.ID, func() int64 { return h.TG.SendInTopic(jane, thread, text) })
}

// lastRequestHas reports whether the model's last request mentions text.
func lastRequestHas(h *harness, text string) bool {
	reqs := h.LLM.Requests()
	for _, m := range reqs[len(reqs)-1].Messages {
		if strings.Contains(m.Content, text) {
			return true
		}
	}
	return false
}

func TestTwoTopicsKeepSeparateConversationsAndNewResetsOnlyItsOwn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.TG.EnableTopics()
	h.Start()
	apples, bananas := h.TG.CreateTopic(jane.ID, "New thread"), h.TG.CreateTopic(jane.ID, "New thread")

	for _, say := range []struct {
		thread int64
		text   string
	}{{apples, "apples are red"}, {bananas, "bananas are yellow"}, {apples, "cherries too"}} {
		answer := sayInTopic(h, say.thread, say.text)
		if got := h.TG.TopicOf(jane.ID, answer.ID); got != say.thread || answer.Text != "echo: "+say.text {
			t.Fatalf("%q was answered with %q in topic %d, want topic %d", say.text, answer.Text, got, say.thread)
		}
	}
	if !lastRequestHas(h, "apples are red") || lastRequestHas(h, "bananas") {
		t.Error("the apples topic's turn did not see its own history alone")
	}
	if topics := h.TG.Topics(jane.ID); topics[0].Name != "apples are red" || topics[1].Name != "bananas are yellow" {
		t.Errorf("topics named %+v, want each after its first message", topics)
	}
	for _, d := range h.TG.Drafts(jane.ID) {
		if d.ThreadID != apples && d.ThreadID != bananas {
			t.Errorf("a draft went to topic %d", d.ThreadID)
		}
	}

	// /export sends its documents to the topic.
	export := sayInTopic(h, apples, "/export")
	if export.Document == nil || h.TG.TopicOf(jane.ID, export.ID) != apples {
		t.Errorf("/export answered %+v in topic %d", export, h.TG.TopicOf(jane.ID, export.ID))
	}

	// /new in the bananas topic leaves the apples topic as it was.
	reset := sayInTopic(h, bananas, "/new")
	if h.TG.TopicOf(jane.ID, reset.ID) != bananas || len(reset.Buttons()) != 1 {
		t.Fatalf("/new answered %+v (buttons %+v), want its text in the topic with a new-thread button", reset, reset.Buttons())
	}
	sayInTopic(h, bananas, "what did I say?")
	if lastRequestHas(h, "bananas are yellow") {
		t.Error("/new left the topic's old conversation in the model's view")
	}
	sayInTopic(h, apples, "and dates?")
	if !lastRequestHas(h, "apples are red") || !lastRequestHas(h, "cherries too") {
		t.Error("/new in another topic cleared this one")
	}
	if n := h.Count(`SELECT count(*) FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT NULL AND reset_at IS NULL`, jane.ID); n != 2 {
		t.Errorf("%d current topic conversations, want 2", n)
	}

	// The button opens a new topic, greeted there.
	before := len(h.TG.Topics(jane.ID))
	greeting := h.PressForReply(jane, reset, reset.Buttons()[0].Data)
	topics := h.TG.Topics(jane.ID)
	if len(topics) != before+1 || h.TG.TopicOf(jane.ID, greeting.ID) != topics[len(topics)-1].ID {
		t.Fatalf("the button left topics %+v and greeted in %d", topics, h.TG.TopicOf(jane.ID, greeting.ID))
	}
}

func TestWithoutTopicsAChatIsOneConversation(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.LLM.Script(openaifake.Reply{Content: "one"}, openaifake.Reply{Content: "two"})
	h.Start()
	h.Say(jane, "first")
	h.Say(jane, "second")
	if !lastRequestHas(h, "first") {
		t.Error("the second turn did not see the first")
	}
	if n := h.Count(`SELECT count(*) FROM conversations WHERE message_thread_id IS NOT NULL`); n != 0 {
		t.Errorf("%d conversations with a topic, without topics", n)
	}
	if reset := h.SayAll(jane, "/new"); len(reset[0].Buttons()) != 0 {
		t.Error("/new offers a new thread without topics")
	}
}

func TestAReminderSetInATopicIsSentToIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["REMINDER_MIN_LEAD"] = "1s"
	h.TG.EnableTopics()
	h.LLM.Script(
		openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("call_r", "set_reminder", `{"text":"stretch","in":"1s"}`)}},
		openaifake.Reply{Content: "Will do."},
	)
	h.Start()
	thread := h.TG.CreateTopic(jane.ID, "New thread")
	before := len(h.TG.Messages(jane.ID))
	h.TG.SendInTopic(jane, thread, "remind me to stretch in a second")
	h.NextTo(jane.ID, before+1, "the answer and the reminder")
	for _, m := range h.TG.Messages(jane.ID)[before:] {
		if got := h.TG.TopicOf(jane.ID, m.ID); got != thread {
			t.Errorf("%q went to topic %d, want %d", m.Text, got, thread)
		}
	}
	if n := h.Count(`SELECT count(*) FROM reminders WHERE message_thread_id = $1`, thread); n != 1 {
		t.Errorf("%d reminders of the topic", n)
	}
}

// A forum supergroup's topic is answered in the topic, every message of
// the turn (the answer, an approval's buttons, the answer after the
// press), and is a conversation of its own; a reply thread of a group
// without topics (message_thread_id without is_topic_message) is not a
// topic. The bot's private topics need not be enabled for it.
func TestAForumTopicIsAnsweredInItAsAConversationOfItsOwn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["FETCH_ALLOW_PRIVATE"] = "true"
	url, _ := menuPage(t)
	h.Start()
	const forum = -100555
	bugs, holidays := h.TG.CreateTopic(forum, "Bugs"), h.TG.CreateTopic(forum, "Holidays")
	mention := "@" + h.TG.Username + " "

	answer := h.Expect(forum, func() int64 { return h.TG.SendInForumTopic(forum, jane, bugs, mention+"the login page is blue") })
	if topic := h.TG.TopicOf(forum, answer.ID); topic != bugs {
		t.Fatalf("the answer went to topic %d, want %d (Bugs)", topic, bugs)
	}
	h.Expect(forum, func() int64 { return h.TG.SendInForumTopic(forum, jane, holidays, mention+"where shall we go?") })
	reqs := h.LLM.Requests()
	for _, m := range reqs[len(reqs)-1].Messages {
		if strings.Contains(m.Content, "login page") {
			t.Fatalf("the Holidays topic's request holds the Bugs topic's message: %q", m.Content)
		}
	}
	if n := h.Count(`SELECT count(DISTINCT id) FROM conversations WHERE chat_id = $1 AND message_thread_id IN ($2, $3)`, forum, bugs, holidays); n != 2 {
		t.Errorf("%d conversations for the two topics, want 2", n)
	}

	// An approval asked in the topic, and the answer after the press.
	h.LLM.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("call_forum", "fetch_url", `{"url":"`+url+`"}`)}})
	before := len(h.TG.Messages(forum))
	h.TG.SendInForumTopic(forum, jane, bugs, mention+"what is on the menu?")
	prompt := h.NextTo(forum, before, "the fetch request")
	if topic := h.TG.TopicOf(forum, prompt.ID); topic != bugs || len(prompt.Buttons()) != 2 {
		t.Fatalf("the approval went to topic %d with buttons %+v", topic, prompt.Buttons())
	}
	after := h.PressForReply(jane, prompt, prompt.Buttons()[0].Data)
	if topic := h.TG.TopicOf(forum, after.ID); topic != bugs {
		t.Errorf("the answer after the press went to topic %d, want %d", topic, bugs)
	}

	// A reply thread in a group without topics is the group's conversation.
	const plain = -100556
	msg := telegramfake.TextMessage(plain, "supergroup", jane, mention+"hello")
	msg["message_thread_id"] = 42
	reply := h.Expect(plain, func() int64 { return h.TG.AddUpdate("message", msg) })
	if call := h.TG.Calls("sendMessage"); call[len(call)-1].Params["message_thread_id"] != "" || reply.Text == "" {
		t.Errorf("the answer in a group without topics was sent to thread %q", call[len(call)-1].Params["message_thread_id"])
	}
}
