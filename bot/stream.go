package bot

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/membot/membot/bot/telegram"
)

// ShownStore records, on an update, the messages its answer is shown in.
type ShownStore interface {
	NoteShown(ctx context.Context, updateID int64, telegramMessageIDs []int64) error
}

// streamer shows an answer in the chat while the model writes it; it is the
// agent's Sink. In a private chat it shows a draft (sendMessageDraft): a
// "Thinking…" placeholder at once, then the text as it comes (at most one
// call per draftEvery), the tools of a round while they run; the final
// answer is then sent once as a normal message, which replaces the draft.
// Elsewhere (groups, a Bot API server without drafts, an answer an earlier
// attempt showed in messages already), the first piece goes out as a
// message at once; then the message is edited as more arrives, at most once
// per interval (Telegram allows about one edit per second in a chat), and
// an answer that outgrows one message continues in the next. Those messages
// are noted on the update as they are sent: an attempt that takes the
// update over after a crash starts from them, and edits what the dead one
// left into its answer, never deleting and sending it again.
type streamer struct {
	client    *telegram.Client
	chatID    int64
	thread    int64 // the topic of the chat answered (0: none)
	replyTo   int
	every     time.Duration // between two calls to Telegram
	editEvery time.Duration // every, when editing messages
	log       *slog.Logger
	firstText func() // called at the first piece of text: stops "typing…"
	once      sync.Once
	note      func(ids []int64) // records the messages shown in, on the update
	// draft, when not nil, is the draft the answer is shown in until send
	// delivers it; nil: the answer is shown in messages that are edited.
	draft *telegram.Draft
	send  func(ctx context.Context, text string) ([]int64, string, error)
	// shownAs is how the final answer was shown (shownRich, shownHTML).
	shownAs string
	// toolStatus says which tools a round runs, in the user's language.
	toolStatus func(names []string) string
	// stopButton is the Stop button of a message being edited (a draft has
	// Telegram's own).
	stopButton [][]telegram.Button

	mu     sync.Mutex
	text   string // the answer so far
	status string // the tools being run, shown in a draft while it has no text

	wake chan struct{} // the text changed (buffered, 1)
	quit chan struct{} // closed to stop showing the text as it comes
	done chan struct{} // closed when the showing goroutine has stopped

	// Owned by the showing goroutine until done is closed, then by the caller.
	ids   []int64  // the messages the answer is shown in
	shown []string // the Markdown each of them shows
	last  time.Time
}

// to is where the answer is sent: the chat, in its topic.
func (s *streamer) to() telegram.Chat { return telegram.Chat{ID: s.chatID, Thread: s.thread} }

// draftMethod is the Bot API method drafts are shown with.
const draftMethod = "sendMessageDraft"

func (h *Handler) newStreamer(ctx context.Context, in *incoming, firstText func()) *streamer {
	every := h.EditEvery
	if every <= 0 {
		every = DefaultEditEvery
	}
	s := &streamer{client: h.Client, chatID: in.msg.Chat.ID, thread: in.thread, replyTo: replyTo(in), every: every, editEvery: every, log: h.Log,
		firstText: firstText, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{}),
		toolStatus: tr(in.lang()).RunningTools,
		stopButton: [][]telegram.Button{{{Text: tr(in.lang()).StopButton, Data: "stop"}}},
		send:       func(ctx context.Context, text string) ([]int64, string, error) { return h.sendAnswer(ctx, in, text) }}
	// What an earlier attempt left showing is edited (their text unknown).
	s.ids, s.shown = slices.Clone(in.update.Shown), make([]string, len(in.update.Shown))
	s.note = func(ids []int64) {
		if err := h.Memory.NoteShown(ctx, in.update.UpdateID, ids); err != nil {
			h.Log.Warn("noting the messages an answer shows in failed", "update_id", in.update.UpdateID, "err", err)
		}
	}
	if h.usesDrafts(in) {
		s.draft = &telegram.Draft{Chat: s.to(), DraftID: draftID(in), CanStop: true}
		s.every = h.draftEvery()
		s.poke() // the placeholder, at once
	}
	go s.run(ctx)
	return s
}

// usesDrafts tells whether an answer to in streams as a draft: in private
// chats, unless the server does not know drafts or an earlier attempt
// already showed the answer in messages (those are finished in place).
func (h *Handler) usesDrafts(in *incoming) bool {
	return in.msg.Chat.IsPrivate() && len(in.update.Shown) == 0 && h.Client.Supports(draftMethod)
}

func (h *Handler) draftEvery() time.Duration {
	if h.DraftEvery > 0 {
		return h.DraftEvery
	}
	return DefaultDraftEvery
}

// draftID names the draft of the answer to an update: non-zero, and the
// same for an attempt that takes the update over after a crash, so that
// its draft replaces the dead one's. Telegram's stopped_message_generation
// names it back.
func draftID(in *incoming) int64 {
	if id := in.update.UpdateID % math.MaxInt32; id > 0 {
		return id
	}
	return 1
}

// Text adds a piece of the answer. It implements agent.Sink.
func (s *streamer) Text(delta string) {
	s.once.Do(s.firstText)
	s.mu.Lock()
	s.text += delta
	s.status = ""
	s.mu.Unlock()
	s.poke()
}

// Discard drops the text so far. It implements agent.Sink.
func (s *streamer) Discard() {
	s.mu.Lock()
	s.text = ""
	s.mu.Unlock()
	s.poke()
}

// Tools shows, in a draft, which tools the model runs now. It implements
// agent.ToolSink.
func (s *streamer) Tools(names []string) {
	s.mu.Lock()
	s.text, s.status = "", s.toolStatus(names)
	s.mu.Unlock()
	s.poke()
}

func (s *streamer) poke() {
	select {
	case s.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// run shows the text as it changes, pacing the calls to Telegram.
func (s *streamer) run(ctx context.Context) {
	defer close(s.done)
	for {
		select {
		case <-s.quit:
			return
		case <-s.wake:
		}
		if !s.pace(ctx, s.quit) {
			return
		}
		s.mu.Lock()
		text, status := s.text, s.status
		s.mu.Unlock()
		if s.draft != nil {
			err := s.showDraft(ctx, text, status)
			if err == nil || !s.fallBack(err) {
				continue
			}
		}
		if err := s.show(ctx, text, false); err != nil && ctx.Err() == nil {
			s.log.Debug("showing a streamed answer failed; the final text will be sent", "chat_id", s.chatID, "err", err)
			if telegram.IsPermanent(err) {
				return // it would fail again (a blocked chat): only the final text is tried
			}
		}
	}
}

// showDraft shows the text so far in the draft: its last part, where the
// model writes (the whole answer goes out when it is done), or the tools
// being run while there is no text, or "Thinking…".
func (s *streamer) showDraft(ctx context.Context, text, status string) error {
	d := *s.draft
	d.Plain = status
	if strings.TrimSpace(text) != "" && richFor(s.client, text) && s.client.Supports(telegram.RichDraftMethod) {
		d.Markdown = text
		err := s.client.SendRichMessageDraft(ctx, d)
		s.last = time.Now()
		if err == nil || !richRefused(s.log, s.chatID, err) {
			return err
		}
	}
	if strings.TrimSpace(text) != "" {
		parts := telegram.SplitMarkdown(text, telegram.MaxMessageLength)
		d.Markdown, d.Plain = parts[len(parts)-1], ""
	}
	err := s.client.SendMessageDraft(ctx, d)
	s.last = time.Now()
	return err
}

// fallBack decides what a failed draft comes to: a server that does not
// know drafts (an older self-hosted Bot API server), or that refuses them
// in this chat, gets the answer in edited messages instead; any other
// failure is passing, and the next draft is tried.
func (s *streamer) fallBack(err error) bool {
	var unknown *telegram.UnsupportedError
	switch {
	case errors.As(err, &unknown):
		if unknown.First {
			s.log.Warn("the Bot API server does not know sendMessageDraft: answers are streamed by editing a message for the rest of this run",
				"err", err)
		}
	case telegram.IsPermanent(err):
		s.log.Debug("a draft was refused; this answer is streamed by editing a message", "chat_id", s.chatID, "err", err)
	default:
		s.log.Debug("showing a draft failed", "chat_id", s.chatID, "err", err)
		return false
	}
	s.draft, s.every = nil, s.editEvery
	return true
}

// finish shows the final text (the stored answer) and returns the ids of
// the messages it is in. A draft is replaced by the answer sent once, as a
// normal message.
func (s *streamer) finish(ctx context.Context, final string) ([]int64, error) {
	s.stop()
	s.shownAs = shownHTML
	if s.draft != nil && len(s.ids) == 0 {
		ids, as, err := s.send(ctx, final)
		s.shownAs = as
		return ids, err
	}
	if ids, ok, err := s.finishRich(ctx, final); ok {
		return ids, err
	}
	if !s.pace(ctx, nil) {
		return s.ids, ctx.Err()
	}
	err := s.show(ctx, final, true)
	return s.ids, err
}

// abort stops the streamer and deletes what it showed: the turn produced no
// answer to stand behind it.
func (s *streamer) abort(ctx context.Context) {
	s.stop()
	for _, id := range s.ids {
		if err := s.client.DeleteMessage(ctx, s.chatID, id); err != nil {
			s.log.Debug("deleting a half-shown answer failed", "chat_id", s.chatID, "err", err)
		}
	}
	s.ids, s.shown = nil, nil
}

func (s *streamer) stop() {
	select {
	case <-s.quit:
	default:
		close(s.quit)
	}
	<-s.done
}

// pace waits until the last call to Telegram is an interval old; false if
// ctx ended or quit was closed first.
func (s *streamer) pace(ctx context.Context, quit <-chan struct{}) bool {
	wait := time.Until(s.last.Add(s.every))
	if s.last.IsZero() || wait <= 0 {
		return true
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-quit:
		return false
	}
}

// show makes the chat show text: messages whose part changed are edited,
// parts with no message yet are sent. The final text also deletes messages
// the answer no longer needs (its text shrank after a Discard).
func (s *streamer) show(ctx context.Context, text string, final bool) error {
	var parts []string
	if strings.TrimSpace(text) != "" {
		parts = telegram.SplitMarkdown(text, telegram.MaxMessageLength)
	}
	for i, part := range parts {
		// While it is written, the first message has a Stop button (the
		// final text goes without): what it shows is the part and the button.
		key, opts := part, telegram.SendOptions{Markdown: true}
		if i == 0 && !final && s.stopButton != nil {
			key, opts.Buttons = part+"\x00stop", s.stopButton
		}
		switch {
		case i < len(s.ids) && s.shown[i] == key:
			continue
		case i < len(s.ids):
			err := s.client.EditText(ctx, s.chatID, s.ids[i], part, opts)
			s.last = time.Now()
			if err == nil {
				s.shown[i] = key
				continue
			}
			if !telegram.IsPermanent(err) {
				return err
			}
			// The message is gone (the user deleted it, say): send the part anew.
		}
		to := 0
		if i == 0 {
			to = s.replyTo
		}
		id, err := s.sendPart(ctx, to, part, opts)
		s.last = time.Now()
		if err != nil {
			return err
		}
		if i < len(s.ids) {
			s.ids[i], s.shown[i] = id, key
		} else {
			s.ids, s.shown = append(s.ids, id), append(s.shown, key)
		}
		s.note(slices.Clone(s.ids))
	}
	if final {
		for _, id := range s.ids[len(parts):] {
			if err := s.client.DeleteMessage(ctx, s.chatID, id); err != nil {
				s.log.Debug("deleting a message the answer outgrew failed", "chat_id", s.chatID, "err", err)
			}
		}
		s.ids, s.shown = s.ids[:len(parts)], s.shown[:len(parts)]
	}
	return nil
}

// sendPart sends one part of the answer (split already), with its buttons.
func (s *streamer) sendPart(ctx context.Context, replyTo int, part string, opts telegram.SendOptions) (int64, error) {
	if opts.Buttons == nil {
		return s.client.SendMarkdownPart(ctx, s.to(), replyTo, part)
	}
	ids, err := s.client.SendText(ctx, s.to(), replyTo, part, opts)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	return ids[0], nil
}
