package telegramfake

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"
)

// Rich messages (Bot API 10.1-10.3), as documented: sendRichMessage and
// sendRichMessageDraft take rich_message, an InputRichMessage with exactly
// one of html, markdown or blocks, at most 32,768 characters of text;
// editMessageText takes rich_message in place of text. The fake keeps the
// source (the markdown) as the message's text and notes that it is rich. A
// fake made with NoRich answers them as a server without rich messages
// does: 404 for the methods, and editMessageText refuses the missing text.

// NoRich makes the fake a Bot API server without rich messages, or with.
func (s *Server) NoRich(no bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ext.noRich = no
}

// IsRich reports whether a message of the chat is a rich message.
func (s *Server) IsRich(chatID, messageID int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ext.rich[[2]int64{chatID, messageID}]
}

// richSource reads rich_message: its markdown (or html) source.
func richSource(raw string) (string, *Fault) {
	var m struct {
		HTML     *string           `json:"html"`
		Markdown *string           `json:"markdown"`
		Blocks   []json.RawMessage `json:"blocks"`
	}
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return "", badRequest("Bad Request: can't parse rich_message JSON object")
	}
	n, src := 0, ""
	if m.HTML != nil {
		n, src = n+1, *m.HTML
	}
	if m.Markdown != nil {
		n, src = n+1, *m.Markdown
	}
	if m.Blocks != nil {
		n++
	}
	switch {
	case n != 1:
		return "", badRequest("Bad Request: exactly one of html, markdown or blocks must be specified")
	case utf8.RuneCountInString(src) > 32768:
		return "", badRequest("Bad Request: RICH_MESSAGE_TOO_LONG")
	}
	return src, nil
}

// rich answers the rich methods, and editMessageText with rich_message.
func (s *Server) rich(c Call) (any, *Fault, bool) {
	edit := c.Method == "editMessageText" && c.Params["rich_message"] != ""
	if c.Method != "sendRichMessage" && c.Method != "sendRichMessageDraft" && !edit {
		return nil, nil, false
	}
	s.mu.Lock()
	no := s.ext.noRich
	s.mu.Unlock()
	switch {
	case no && edit:
		return nil, badRequest("Bad Request: message text is empty"), true
	case no:
		return nil, &Fault{Status: http.StatusNotFound, Message: "Not Found"}, true
	}
	src, f := richSource(c.Params["rich_message"])
	if f != nil {
		return nil, f, true
	}
	chatID, _ := strconv.ParseInt(c.Params["chat_id"], 10, 64)
	if c.Method == "sendRichMessageDraft" {
		return s.richDraft(c, chatID, src)
	}
	s.mu.Lock()
	sent, f := s.keepRich(c, chatID, src, edit)
	onSent := s.onSent
	s.mu.Unlock()
	if f != nil {
		return nil, f, true
	}
	if onSent != nil {
		onSent(sent)
	}
	if edit {
		return true, nil, true
	}
	return map[string]any{"message_id": sent.MessageID, "from": s.Bot(), "date": time.Now().Unix(),
		"chat": map[string]any{"id": chatID, "type": chatType(chatID)}}, nil, true
}

// keepRich stores a rich message, or a message edited into one, and
// records it as sent. s.mu must be held.
func (s *Server) keepRich(c Call, chatID int64, src string, edit bool) (Sent, *Fault) {
	var msg *Message
	if edit {
		id, _ := strconv.ParseInt(c.Params["message_id"], 10, 64)
		if msg = s.find(chatID, id); msg == nil {
			return Sent{}, badRequest("Bad Request: message to edit not found")
		}
		msg.Text, msg.Entities, msg.ReplyMarkup = src, nil, c.Params["reply_markup"]
		msg.Edits++
	} else {
		var reply struct {
			MessageID int64 `json:"message_id"`
		}
		json.Unmarshal([]byte(c.Params["reply_parameters"]), &reply)
		s.nextMsg[chatID]++
		msg = &Message{ChatID: chatID, ID: 100000 + s.nextMsg[chatID], Text: src, ReplyMarkup: c.Params["reply_markup"], ReplyTo: reply.MessageID}
		s.messages[chatID] = append(s.messages[chatID], msg)
	}
	if s.ext.rich == nil {
		s.ext.rich = map[[2]int64]bool{}
	}
	s.ext.rich[[2]int64{chatID, msg.ID}] = true
	sent := Sent{Method: c.Method, ChatID: chatID, MessageID: msg.ID, Text: src, ReplyTo: msg.ReplyTo, Params: c.Params, At: c.At}
	s.sent = append(s.sent, sent)
	s.changed.Broadcast()
	return sent, nil
}

// richDraft records a rich draft, validated as a draft is.
func (s *Server) richDraft(c Call, chatID int64, src string) (any, *Fault, bool) {
	draftID, _ := strconv.ParseInt(c.Params["draft_id"], 10, 64)
	switch {
	case chatType(chatID) != "private":
		return nil, badRequest("Bad Request: drafts can be sent only to private chats"), true
	case draftID == 0:
		return nil, badRequest("Bad Request: draft_id must be non-zero"), true
	}
	thread := threadOf(c.Params)
	if f := s.checkThread(chatID, thread); f != nil {
		return nil, f, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ext.drafts = append(s.ext.drafts, Draft{ChatID: chatID, ThreadID: thread, DraftID: draftID, Text: src, Rich: true,
		CanStop: c.Params["can_stop"] == "true", At: c.At, sentSeen: len(s.sent)})
	s.changed.Broadcast()
	return true, nil, true
}
