package bot

import (
	"cmp"
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/bot/present"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
)

// How one answer goes: converse hands the text to the agent (answer runs
// the turn, streaming it through bot/present when Streaming is on), and
// deliver shows what the turn came to: the answer, through bot/present, or
// the buttons of the tool calls it waits on (approvals.go).

// ShownStore records, on an update, the messages its answer is shown in.
type ShownStore interface {
	NoteShown(ctx context.Context, updateID int64, telegramMessageIDs []int64) error
}

// converse sends the text to the agent and the answer to the chat.
func (h *Handler) converse(ctx context.Context, in *incoming, text string) (*queue.Delivery, error) {
	return h.answer(ctx, in, h.Agent.Reply, text)
}

// answer runs a turn (Agent.Reply, or Agent.Regenerate for /retry) and
// delivers what it came to. With Streaming the answer is shown while the
// model writes it.
func (h *Handler) answer(ctx context.Context, in *incoming, turn func(context.Context, agent.Request) (*agent.Reply, error), text string) (delivery *queue.Delivery, err error) {
	in.turn = true
	req := h.request(in, text)
	var stream *present.Stream
	stopTyping := func() {}
	if h.Streaming {
		stream = h.stream(ctx, in, func() { stopTyping() })
		defer stream.Stop() // also when the turn panics
		req.Sink = stream
	}
	if stream == nil || !stream.Drafting() { // a draft's placeholder says it already
		stopTyping = h.presenter().Typing(ctx, in.chat(), h.TypingEvery)
	}
	defer stopTyping()
	turnCtx, endTurn := h.stoppable(ctx, in)
	defer endTurn() // also when the turn panics
	r, err := turn(turnCtx, req)
	endTurn()
	stopTyping()
	if stream != nil && (err != nil || r.Outcome == agent.Paused) {
		stream.Abort(ctx) // nothing it showed is a stored answer
		stream = nil
	}
	switch {
	case errors.Is(err, memory.ErrNoUserMessage):
		return nil, h.reply(ctx, in, tr(in.lang()).NothingToRetry)
	case err != nil:
		return nil, h.turnFailed(ctx, in, err)
	}
	return h.deliver(ctx, in, r, stream)
}

// stream shows the answer to in while the model writes it (bot/present);
// firstText is called at its first piece of text. The messages it shows
// in are noted on the update as they are sent.
func (h *Handler) stream(ctx context.Context, in *incoming, firstText func()) *present.Stream {
	t := tr(in.lang())
	return h.presenter().Stream(ctx, present.StreamParams{To: to(in), Private: in.msg.Chat.IsPrivate(), DraftID: draftID(in),
		Shown: in.update.Shown, FirstText: firstText, ToolStatus: t.RunningTools, StopLabel: t.StopButton,
		Note: h.noteShown(ctx, in)})
}

// noteShown records on in's update the messages its answer is in, each
// time one is sent, before anything else happens: Telegram has no
// idempotency key, and a run that dies between a send and its record
// leaves a message the next run does not know of, and sends again. A
// run that takes the update over finds them in queue.Update.Shown and
// finishes them in place. The window is the one write (logged at debug
// level with how long it took).
func (h *Handler) noteShown(ctx context.Context, in *incoming) present.Note {
	return func(ids []int64) {
		start := time.Now()
		if err := h.Stores.Inbox.NoteShown(ctx, in.update.UpdateID, ids); err != nil {
			h.Log.Warn("noting the messages an answer shows in failed", "update_id", in.update.UpdateID, "err", err)
			return
		}
		h.Log.Debug("an answer's messages noted", "update_id", in.update.UpdateID, "telegram_message_ids", ids, "took", time.Since(start))
	}
}

// draftID names the draft of the answer to an update: non-zero, and the
// same for an attempt that takes the update over after a crash, so that
// its draft replaces the dead one's. Telegram's stopped_message_generation
// names it back (stop.go).
func draftID(in *incoming) int64 {
	id := in.update.UpdateID % math.MaxInt32
	if id < 0 { // a scheduled run's (a negative id): its own draft too
		id = -id
	}
	return max(id, 1)
}

// request is the agent's request for in's message with text.
func (h *Handler) request(in *incoming, text string) agent.Request {
	return agent.Request{User: in.user, Chat: in.conversation(), UpdateID: in.update.UpdateID,
		MessageID: int64(in.msg.MessageID), Text: text, SentAt: sentAt(in), Attachments: in.attachments, Kind: in.kind,
		Forwarded: in.query == nil && in.run == nil && telegram.Forwarded(in.msg, in.update.Payload), ViaBot: viaBot(in), Scheduled: in.run}
}

// viaBot is the username of the inline bot in's message was sent via
// (Telegram's via_bot: that bot wrote its text), "" for none.
func viaBot(in *incoming) string {
	if in.query != nil || in.run != nil || in.msg.ViaBot == nil {
		return ""
	}
	return cmp.Or(in.msg.ViaBot.UserName, "id "+strconv.FormatInt(in.msg.ViaBot.ID, 10))
}

// turnFailed decides what a failed turn comes to: a retry later when the
// database is away (or the bot is stopping), an apology otherwise.
func (h *Handler) turnFailed(ctx context.Context, in *incoming, err error) error {
	if Transient(err) || ctx.Err() != nil {
		return err // handled again later: no apology
	}
	return h.apologise(ctx, in, err)
}

// deliver sends what a turn came to: its answer, or the buttons of the tool
// calls it waits on. stream, when not nil, has been showing the answer.
func (h *Handler) deliver(ctx context.Context, in *incoming, r *agent.Reply, stream *present.Stream) (*queue.Delivery, error) {
	in.tokens, in.paused = r.Tokens, r.Outcome == agent.Paused
	switch r.Outcome {
	case agent.Paused:
		return nil, h.approvals().Ask(ctx, in.chat(), replyTo(in), in.lang(), r.Approvals, r.Outside)
	case agent.Delivered:
		return nil, nil
	}
	text := r.Text
	switch {
	case strings.TrimSpace(text) == "" && r.Outcome == agent.Stopped:
		text = tr(in.lang()).StoppedEmpty
	case strings.TrimSpace(text) == "":
		text = tr(in.lang()).Empty
	}
	if stream == nil && len(in.update.Shown) > 0 {
		// An earlier attempt sent (the start of) this answer and died
		// before recording its delivery: those messages are finished in
		// place, not sent again.
		stream = h.stream(ctx, in, func() {})
	}
	var shown present.Shown
	var err error
	if stream != nil {
		shown, err = stream.Finish(ctx, text)
	} else {
		shown, err = h.presenter().Answer(ctx, to(in), text, h.noteShown(ctx, in))
	}
	ids := shown.IDs
	if err != nil {
		if len(ids) > 0 { // what was shown is the answer's: never sent again
			return &queue.Delivery{MessageID: r.MessageID, TelegramMessageIDs: ids, ShownAs: shown.As}, err
		}
		return nil, err
	}
	orNone(h.Metrics).ReplySent("answer")
	if r.First {
		h.nameTopic(ctx, in, in.route.text)
	}
	if h.ShowReasoning && r.Reasoning != "" && len(ids) > 0 {
		h.presenter().Reasoning(ctx, in.chat(), ids[0], tr(in.lang()).Thinking, r.Reasoning)
	}
	if r.Speak && len(ids) > 0 && h.Agent.CanSpeak() {
		h.speak(ctx, in, text, ids[0])
	}
	return &queue.Delivery{MessageID: r.MessageID, TelegramMessageIDs: ids, ShownAs: shown.As}, nil
}
