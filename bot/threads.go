package bot

import (
	"context"

	"github.com/membot/membot/bot/present"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory/queue"
)

// Threads. When the bot has topics enabled (@BotFather; getMe's
// has_topics_enabled), a private chat may have topics; a forum supergroup
// has topics of its own. Each topic is a conversation of its own (a forum's
// topics are separate discussions by design: what is said in "Bugs" is not
// the context of "Holidays", and /new in one leaves the others be): Handle reads the update's topic with the rest
// of it (telegram.Client.DecodeUpdate), and everything done for the update takes it from there
// (incoming.conversation for memory, incoming.chat for Telegram), so the
// conversation it reads and changes is the topic's and everything sent
// goes to the topic. Long-term facts stay the user's. A
// topic is named after its first exchange; /new offers a button that opens
// a new one. Without topics nothing changes.

// nameTopic names a new topic of a private chat after its first exchange:
// the first words of the user's message (texts.TopicName). A forum's
// topics are named by their people. It is a courtesy: a failure is only
// logged.
func (h *Handler) nameTopic(ctx context.Context, in *incoming, text string) {
	thread := in.thread
	name := texts.TopicName(text)
	if thread == 0 || name == "" || !in.msg.Chat.IsPrivate() {
		return
	}
	if err := h.Client.EditForumTopic(ctx, in.msg.Chat.ID, thread, name); err != nil {
		h.Log.Debug("naming a topic failed", "chat_id", in.msg.Chat.ID, "thread", thread, "err", err)
	}
}

// newThreadButtons is the "new thread" button /new offers where the user
// may have topics.
func (h *Handler) newThreadButtons(in *incoming) [][]telegram.Button {
	if !h.Client.TopicsEnabled() || !in.msg.Chat.IsPrivate() {
		return nil
	}
	return [][]telegram.Button{{{Text: tr(in.lang()).NewThreadButton, Data: "thread:new"}}}
}

// pressNewThread opens a new topic and greets the user in it.
func pressNewThread(ctx context.Context, h *Handler, in *incoming, _ string) (*queue.Delivery, error) {
	h.notify(ctx, in, "")
	thread, err := h.Client.CreateForumTopic(ctx, in.msg.Chat.ID, tr(in.lang()).NewThreadName)
	if err != nil {
		if telegram.IsPermanent(err) || telegram.IsUnsupported(err) {
			return nil, h.reply(ctx, in, tr(in.lang()).NewThreadFailed)
		}
		return nil, err
	}
	_, err = h.presenter().Text(ctx, present.To{Chat: telegram.Chat{ID: in.msg.Chat.ID, Thread: thread}}, tr(in.lang()).NewThreadHello)
	return nil, err
}
