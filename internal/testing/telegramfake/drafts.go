package telegramfake

import (
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Drafts (Bot API 9.3; can_stop and stopped_message_generation 10.3), as
// the Bot API documentation describes sendMessageDraft: chat_id must be a
// private chat, draft_id non-zero, text 0-4096 characters after entities
// parsing (empty: a "Thinking…" placeholder), message_thread_id a topic of
// the chat. A draft shows until the bot sends a message to its chat (and
// topic). A fake made with NoDrafts answers the method as an older Bot API
// server does: 404 Not Found.

// Draft is one sendMessageDraft call the fake accepted.
type Draft struct {
	ChatID   int64
	ThreadID int64
	DraftID  int64
	Text     string // as shown: with parse_mode HTML, the tags taken out
	Entities []Entity
	CanStop  bool
	Rich     bool // sendRichMessageDraft: Text is its Markdown source
	At       time.Time
	sentSeen int // how many messages had been sent when it came: later ones replace it
}

// extras is the state of the methods newer than the fake's first version.
type extras struct {
	noDrafts bool
	drafts   []Draft
	topicsOn atomic.Bool // read by Bot, which runs under s.mu
	topics   map[int64][]Topic
	noRich   bool
	rich     map[[2]int64]bool // chat and message id: a rich message
}

// NoDrafts makes the fake answer sendMessageDraft as a Bot API server that
// does not know it (404), or know it again.
func (s *Server) NoDrafts(no bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ext.noDrafts = no
}

// Drafts returns the drafts shown in a chat, in order.
func (s *Server) Drafts(chatID int64) []Draft {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Draft
	for _, d := range s.ext.drafts {
		if d.ChatID == chatID {
			out = append(out, d)
		}
	}
	return out
}

// WaitDrafts waits until cond holds for the chat's drafts, up to timeout.
func (s *Server) WaitDrafts(chatID int64, timeout time.Duration, cond func([]Draft) bool) ([]Draft, bool) {
	deadline := time.Now().Add(timeout)
	stop := time.AfterFunc(timeout, func() { s.mu.Lock(); s.changed.Broadcast(); s.mu.Unlock() })
	defer stop.Stop()
	for {
		drafts := s.Drafts(chatID)
		if cond(drafts) {
			return drafts, true
		}
		if time.Now().After(deadline) {
			return drafts, false
		}
		s.mu.Lock()
		if len(s.draftsOf(chatID)) == len(drafts) {
			s.changed.Wait()
		}
		s.mu.Unlock()
	}
}

func (s *Server) draftsOf(chatID int64) []Draft {
	var out []Draft
	for _, d := range s.ext.drafts {
		if d.ChatID == chatID {
			out = append(out, d)
		}
	}
	return out
}

// ShownDraft returns the draft a chat (or topic) shows now: the last one,
// unless a message was sent to it since.
func (s *Server) ShownDraft(chatID, threadID int64) (Draft, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.ext.drafts) - 1; i >= 0; i-- {
		d := s.ext.drafts[i]
		if d.ChatID != chatID || d.ThreadID != threadID {
			continue
		}
		for _, m := range s.sent[d.sentSeen:] {
			if m.ChatID == chatID && m.Method != "editMessageText" && threadOf(m.Params) == threadID {
				return Draft{}, false
			}
		}
		return d, true
	}
	return Draft{}, false
}

// PressStop presses the Stop button of the draft a chat shows, as a user
// would: Telegram sends the bot stopped_message_generation. It returns the
// update's id, or 0 when the chat shows no draft with a Stop button.
func (s *Server) PressStop(chatID, threadID int64) int64 {
	d, ok := s.ShownDraft(chatID, threadID)
	if !ok || !d.CanStop {
		return 0
	}
	body := map[string]any{"chat": map[string]any{"id": chatID, "type": "private"}, "draft_id": d.DraftID}
	if threadID != 0 {
		body["message_thread_id"] = threadID
	}
	return s.AddUpdate("stopped_message_generation", body)
}

func threadOf(params map[string]string) int64 {
	id, _ := strconv.ParseInt(params["message_thread_id"], 10, 64)
	return id
}

// newer answers the methods added after the fake's first version; nil, nil
// for a method it does not know either.
func (s *Server) newer(c Call) (any, *Fault, bool) {
	switch c.Method {
	case "sendMessageDraft":
		res, f := s.sendMessageDraft(c)
		return res, f, true
	case "createForumTopic":
		res, f := s.createForumTopic(c)
		return res, f, true
	case "editForumTopic":
		res, f := s.editForumTopic(c)
		return res, f, true
	}
	return nil, nil, false
}

func (s *Server) sendMessageDraft(c Call) (any, *Fault) {
	s.mu.Lock()
	no := s.ext.noDrafts
	s.mu.Unlock()
	if no {
		return nil, &Fault{Status: http.StatusNotFound, Message: "Not Found"}
	}
	chatID, _ := strconv.ParseInt(c.Params["chat_id"], 10, 64)
	draftID, _ := strconv.ParseInt(c.Params["draft_id"], 10, 64)
	text, entities := c.Params["text"], []Entity(nil)
	if strings.EqualFold(c.Params["parse_mode"], "HTML") {
		var err error
		if text, entities, err = ParseHTML(text); err != nil {
			return nil, badRequest(err.Error())
		}
	}
	switch {
	case chatType(chatID) != "private":
		return nil, badRequest("Bad Request: drafts can be sent only to private chats")
	case draftID == 0:
		return nil, badRequest("Bad Request: draft_id must be non-zero")
	case utf16Len(text) > 4096:
		return nil, badRequest("Bad Request: text is too long")
	}
	thread := threadOf(c.Params)
	if f := s.checkThread(chatID, thread); f != nil {
		return nil, f
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ext.drafts = append(s.ext.drafts, Draft{ChatID: chatID, ThreadID: thread, DraftID: draftID, Text: text,
		Entities: entities, CanStop: c.Params["can_stop"] == "true", At: c.At, sentSeen: len(s.sent)})
	s.changed.Broadcast()
	return true, nil
}

// checkThread refuses a message_thread_id that is not a topic of the chat.
// Topics are added in threads.go; without them only 0 (none) exists.
func (s *Server) checkThread(chatID, thread int64) *Fault {
	if thread == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.topicExists(chatID, thread) {
		return badRequest("Bad Request: message thread not found")
	}
	return nil
}
