package present

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/membot/membot/bot/telegram"
)

// Stream shows an answer in the chat while the model writes it; it is the
// agent's Sink. In a private chat it shows a draft (sendMessageDraft): a
// "Thinking…" placeholder at once, then the text as it comes (at most one
// call per DraftEvery), the tools of a round while they run; the final
// answer is then sent once as a normal message, which replaces the draft.
// Elsewhere (groups, a Bot API server without drafts, an answer an earlier
// attempt showed in messages already), the first piece goes out as a
// message at once; then the message is edited as more arrives, at most once
// per EditEvery (Telegram allows about one edit per second in a chat), and
// an answer that outgrows one message continues in the next. Those messages
// are noted on the update as they are sent (StreamParams.Note): an attempt
// that takes the update over after a crash starts from them, and edits
// what the dead one left into its answer, never deleting and sending it
// again.
type Stream struct {
	p         *Presenter
	to        To
	every     time.Duration // between two calls to Telegram
	editEvery time.Duration // every, when editing messages
	firstText func()        // called at the first piece of text: stops "typing…"
	once      sync.Once
	note      func(ids []int64) // records the messages shown in, on the update
	// draft, when not nil, is the draft the answer is shown in until
	// Finish sends the answer; nil: the answer is shown in messages that
	// are edited.
	draft *telegram.Draft
	// drafting is draft != nil, for other goroutines (Drafting): the
	// showing goroutine drops the draft when the server refuses it.
	drafting atomic.Bool
	// shownAs is how the final answer was shown (ShownRich, ShownHTML).
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

// StreamParams say where an answer streams and what its update knows.
type StreamParams struct {
	To To
	// Private: the chat is private, where an answer may stream as a draft.
	Private bool
	// DraftID names the draft: non-zero, and the same for an attempt that
	// takes the update over after a crash, so that its draft replaces the
	// dead one's (Telegram's stopped_message_generation names it back).
	DraftID int64
	// Shown are the messages an earlier attempt showed the answer in: they
	// are edited (their text unknown), and no draft is shown.
	Shown []int64
	// Note records the messages the answer is shown in, on the update.
	Note func(ids []int64)
	// FirstText is called at the first piece of text.
	FirstText func()
	// ToolStatus is the line a draft shows while tools run; StopLabel the
	// Stop button's text on a message being edited.
	ToolStatus func(names []string) string
	StopLabel  string
}

// draftMethod is the Bot API method drafts are shown with.
const draftMethod = "sendMessageDraft"

// Stream starts showing an answer as the model writes it, until Finish,
// Abort or Stop.
func (p *Presenter) Stream(ctx context.Context, sp StreamParams) *Stream {
	every := p.editEvery()
	s := &Stream{p: p, to: sp.To, every: every, editEvery: every, note: sp.Note,
		firstText: sp.FirstText, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{}),
		toolStatus: sp.ToolStatus,
		stopButton: [][]telegram.Button{{{Text: sp.StopLabel, Data: "stop"}}}}
	// What an earlier attempt left showing is edited (their text unknown).
	s.ids, s.shown = slices.Clone(sp.Shown), make([]string, len(sp.Shown))
	if sp.Private && len(sp.Shown) == 0 && p.Client.Supports(draftMethod) {
		s.draft = &telegram.Draft{Chat: sp.To.Chat, DraftID: sp.DraftID, CanStop: true}
		s.every = p.draftEvery()
		s.drafting.Store(true)
		s.poke() // the placeholder, at once
	}
	go s.run(ctx)
	return s
}

// Drafting tells whether the answer is shown in a draft, whose
// placeholder says the model is at work already.
func (s *Stream) Drafting() bool { return s.drafting.Load() }

// Text adds a piece of the answer. It implements agent.Sink.
func (s *Stream) Text(delta string) {
	s.once.Do(s.firstText)
	s.mu.Lock()
	s.text += delta
	s.status = ""
	s.mu.Unlock()
	s.poke()
}

// Discard drops the text so far. It implements agent.Sink.
func (s *Stream) Discard() {
	s.mu.Lock()
	s.text = ""
	s.mu.Unlock()
	s.poke()
}

// Tools shows, in a draft, which tools the model runs now. It implements
// agent.ToolSink.
func (s *Stream) Tools(names []string) {
	s.mu.Lock()
	s.text, s.status = "", s.toolStatus(names)
	s.mu.Unlock()
	s.poke()
}

func (s *Stream) poke() {
	select {
	case s.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// run shows the text as it changes, pacing the calls to Telegram.
func (s *Stream) run(ctx context.Context) {
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
			s.p.Log.Debug("showing a streamed answer failed; the final text will be sent", "chat_id", s.to.Chat.ID, "err", err)
			if telegram.IsPermanent(err) {
				return // it would fail again (a blocked chat): only the final text is tried
			}
		}
	}
}

// showDraft shows the text so far in the draft: its last part, where the
// model writes (the whole answer goes out when it is done), or the tools
// being run while there is no text, or "Thinking…".
func (s *Stream) showDraft(ctx context.Context, text, status string) error {
	client := s.p.Client
	if strings.TrimSpace(text) != "" && richFor(client, text) && client.Supports(telegram.RichDraftMethod) {
		err := client.SendRichMessageDraft(ctx, telegram.SendRichMessageDraftParams{Draft: *s.draft, Markdown: text})
		s.last = time.Now()
		if err == nil || !richRefused(s.p.Log, s.to.Chat.ID, err) {
			return err
		}
	}
	err := s.sendDraft(ctx, text, status)
	s.last = time.Now()
	return err
}

// sendDraft shows the last part of text, rendered (formatted), or while
// there is no text the status as it is; neither shows Telegram's
// "Thinking…".
func (s *Stream) sendDraft(ctx context.Context, text, status string) error {
	params := telegram.SendMessageDraftParams{Draft: *s.draft, Text: status}
	if strings.TrimSpace(text) == "" {
		return s.p.Client.SendMessageDraft(ctx, params)
	}
	parts := SplitMarkdown(text, telegram.MaxMessageLength)
	return formatted(parts[len(parts)-1], func(text, parseMode string) error {
		params.Text, params.ParseMode = text, parseMode
		return s.p.Client.SendMessageDraft(ctx, params)
	})
}

// fallBack decides what a failed draft comes to: a server that does not
// know drafts (an older self-hosted Bot API server), or that refuses them
// in this chat, gets the answer in edited messages instead; any other
// failure is passing, and the next draft is tried.
func (s *Stream) fallBack(err error) bool {
	var unknown *telegram.UnsupportedError
	switch {
	case errors.As(err, &unknown):
		if unknown.First {
			s.p.Log.Warn("the Bot API server does not know sendMessageDraft: answers are streamed by editing a message for the rest of this run",
				"err", err)
		}
	case telegram.IsPermanent(err):
		s.p.Log.Debug("a draft was refused; this answer is streamed by editing a message", "chat_id", s.to.Chat.ID, "err", err)
	default:
		s.p.Log.Debug("showing a draft failed", "chat_id", s.to.Chat.ID, "err", err)
		return false
	}
	s.draft, s.every = nil, s.editEvery
	s.drafting.Store(false)
	return true
}

// Finish shows the final text (the stored answer) and returns the
// messages it is in and how it was shown. A draft is replaced by the
// answer sent once, as a normal message (Answer).
func (s *Stream) Finish(ctx context.Context, final string) (Shown, error) {
	s.Stop()
	s.shownAs = ShownHTML
	if s.draft != nil && len(s.ids) == 0 {
		return s.p.Answer(ctx, s.to, final, s.note)
	}
	if ids, ok, err := s.finishRich(ctx, final); ok {
		return Shown{IDs: ids, As: s.shownAs}, err
	}
	if !s.pace(ctx, nil) {
		return Shown{IDs: s.ids, As: s.shownAs}, ctx.Err()
	}
	err := s.show(ctx, final, true)
	return Shown{IDs: s.ids, As: s.shownAs}, err
}

// Abort stops the stream and deletes what it showed: the turn produced no
// answer to stand behind it.
func (s *Stream) Abort(ctx context.Context) {
	s.Stop()
	for _, id := range s.ids {
		if err := s.p.Client.DeleteMessage(ctx, s.to.Chat.ID, id); err != nil {
			s.p.Log.Debug("deleting a half-shown answer failed", "chat_id", s.to.Chat.ID, "err", err)
		}
	}
	s.ids, s.shown = nil, nil
}

// Stop stops showing the text as it comes; Finish and Abort call it, and
// it may be called again.
func (s *Stream) Stop() {
	select {
	case <-s.quit:
	default:
		close(s.quit)
	}
	<-s.done
}

// pace waits until the last call to Telegram is an interval old; false if
// ctx ended or quit was closed first.
func (s *Stream) pace(ctx context.Context, quit <-chan struct{}) bool {
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
func (s *Stream) show(ctx context.Context, text string, final bool) error {
	var parts []string
	if strings.TrimSpace(text) != "" {
		parts = SplitMarkdown(text, telegram.MaxMessageLength)
	}
	for i, part := range parts {
		// While it is written, the first message has a Stop button (the
		// final text goes without): what it shows is the part and the button.
		key, buttons := part, [][]telegram.Button(nil)
		if i == 0 && !final && s.stopButton != nil {
			key, buttons = part+"\x00stop", s.stopButton
		}
		switch {
		case i < len(s.ids) && s.shown[i] == key:
			continue
		case i < len(s.ids):
			err := s.p.editPart(ctx, s.to.Chat.ID, s.ids[i], part, buttons)
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
			to = s.to.ReplyTo
		}
		id, err := s.sendPart(ctx, to, part, buttons)
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
			if err := s.p.Client.DeleteMessage(ctx, s.to.Chat.ID, id); err != nil {
				s.p.Log.Debug("deleting a message the answer outgrew failed", "chat_id", s.to.Chat.ID, "err", err)
			}
		}
		s.ids, s.shown = s.ids[:len(parts)], s.shown[:len(parts)]
	}
	return nil
}

// sendPart sends one part of the answer (split already), with its buttons.
// A part with buttons is split again, as a text is, and shown in the first
// message of that.
func (s *Stream) sendPart(ctx context.Context, replyTo int, part string, buttons [][]telegram.Button) (int64, error) {
	if buttons == nil {
		return s.p.sendPart(ctx, s.to.Chat, replyTo, part, true, nil)
	}
	to := To{Chat: s.to.Chat, ReplyTo: replyTo}
	ids, err := s.p.send(ctx, to, SplitMarkdown(part, telegram.MaxMessageLength), true, buttons, nil)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	return ids[0], nil
}
