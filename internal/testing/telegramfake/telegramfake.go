// Package telegramfake is an in-process fake of the Telegram Bot API for
// tests and benchmarks: it speaks the wire format (form or JSON requests,
// {"ok":...,"result":...} answers), queues updates for getUpdates with
// offsets, and records what the bot sent.
package telegramfake

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
)

// Call is one request the bot made, its parameters as strings.
type Call struct {
	Method string
	Params map[string]string
	At     time.Time
}

// Sent is one message the bot sent (or edited).
type Sent struct {
	Method    string // sendMessage, editMessageText or sendDocument
	ChatID    int64
	MessageID int64
	Text      string // as shown: with parse_mode HTML, the tags taken out and the entities decoded
	Entities  []Entity
	ReplyTo   int64
	Params    map[string]string // as sent (Params["text"] is the HTML itself)
	At        time.Time         // when the request reached the fake
}

// Message is a message the bot sent, as it stands after every edit.
type Message struct {
	ChatID      int64
	ID          int64
	Text        string // as shown
	Entities    []Entity
	ReplyMarkup string // the reply_markup JSON, as sent
	ReplyTo     int64
	Edits       int
	Document    *Document // sendDocument's file
}

// MaxUploadBytes is the largest file the Bot API takes from a bot (50 MB).
const MaxUploadBytes = 50 << 20

// Document is a file the bot sent.
type Document struct {
	Name    string
	Content string
	Caption string
}

// Fault is an injected failure: the next calls of Method get it.
type Fault struct {
	Method     string
	Status     int    // HTTP status and error_code, e.g. 429 or 500; 0 with Delay: a slow answer
	RetryAfter int    // for 429
	Message    string // description
	Times      int    // how many calls it applies to
	// Delay holds the answer back this long. A client that gives up waiting
	// (times out) meanwhile gets nothing done: the call is not recorded.
	Delay time.Duration
	// Hold, when not nil, holds the answer back until it is closed (a
	// client that gives up meanwhile, as with Delay). Close it before the
	// fake: a held call keeps the server from closing.
	Hold <-chan struct{}
	// If, when not nil, limits the fault to the calls it accepts; the others
	// go through and do not count.
	If func(Call) bool
}

// Server is the fake. Use New; Close when done.
type Server struct {
	*httptest.Server
	Token    string
	Username string

	mu        sync.Mutex
	changed   *sync.Cond // signalled on new updates, calls and sends
	updates   []json.RawMessage
	ids       []int64
	nextID    int64
	confirm   int64 // highest offset the bot has asked for
	calls     []Call
	sent      []Sent
	messages  map[int64][]*Message // per chat, in order; deleted ones are removed
	nextMsg   map[int64]int64
	nextQuery int64
	faults    []*Fault
	handlers  map[string]func(Call) (any, *Fault)
	onSent    func(Sent)
	webhook   struct{ url, secret string } // set by setWebhook; getUpdates is refused meanwhile
	members   map[[2]int64]string          // chat and user -> status, for getChatMember; "member" when unset
	files     map[string]*storedFile       // by file_id, for getFile and downloads (files.go)
	voices    []Voiced                     // sendVoice (files.go)
	photos    []Photo                      // sendPhoto (files.go)

	ext extras // drafts, topics, rich messages (drafts.go, threads.go, rich.go)
}

// New starts a fake for the bot with this token.
func New(token string) *Server {
	s := &Server{Token: token, Username: "membot_test_bot", nextID: 1000, nextMsg: map[int64]int64{},
		messages: map[int64][]*Message{}, handlers: map[string]func(Call) (any, *Fault){}}
	s.changed = sync.NewCond(&s.mu)
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is what TELEGRAM_API_URL should be set to.
func (s *Server) URL() string { return s.Server.URL }

// Handle overrides a method: fn returns the result, or a fault to answer with.
func (s *Server) Handle(method string, fn func(Call) (any, *Fault)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers[method] = fn
}

// OnSent calls fn with every message sent (or edited) from now on, as it
// arrives, outside the fake's lock; membench times replies with it.
func (s *Server) OnSent(fn func(Sent)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onSent = fn
}

// StartUpdateIDsAfter makes the next update ids greater than id, as for a
// bot whose database already holds updates up to id.
func (s *Server) StartUpdateIDsAfter(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID = max(s.nextID, id)
}

// Inject queues a fault for the next calls of its method.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// User is a Telegram user for building updates.
type User struct {
	ID           int64  `json:"id"`
	IsBot        bool   `json:"is_bot"`
	FirstName    string `json:"first_name"`
	Username     string `json:"username,omitempty"`
	LanguageCode string `json:"language_code,omitempty"`
	// HasTopicsEnabled is getMe's: the bot has topics in private chats.
	HasTopicsEnabled bool `json:"has_topics_enabled,omitempty"`
}

// SendText queues a private text message from user and returns its update id.
func (s *Server) SendText(from User, text string) int64 {
	return s.SendMessage(from.ID, "private", from, text)
}

// SendMessage queues a text message in any chat and returns its update id.
func (s *Server) SendMessage(chatID int64, chatType string, from User, text string) int64 {
	return s.AddUpdate("message", TextMessage(chatID, chatType, from, text))
}

// TextMessage builds the body of a text message as Telegram sends it, with
// the entities Telegram would mark (a leading /command, @mentions). Tests
// add fields (reply_to_message, photo, caption, ...) before AddUpdate.
func TextMessage(chatID int64, chatType string, from User, text string) map[string]any {
	msg := map[string]any{
		"chat": map[string]any{"id": chatID, "type": chatType},
		"from": from,
		"date": time.Now().Unix(),
		"text": text,
	}
	if entities := Entities(text); len(entities) > 0 {
		msg["entities"] = entities
	}
	return msg
}

// Entities marks a leading /command and every @mention of text, with
// offsets and lengths in UTF-16 units as Telegram counts them.
func Entities(text string) []map[string]any {
	var entities []map[string]any
	offset := 0 // in UTF-16 units
	for i, word := range strings.Split(text, " ") {
		n := len(utf16.Encode([]rune(word)))
		switch {
		case i == 0 && strings.HasPrefix(word, "/") && n > 1:
			entities = append(entities, map[string]any{"type": "bot_command", "offset": 0, "length": n})
		case strings.HasPrefix(word, "@") && n > 1:
			entities = append(entities, map[string]any{"type": "mention", "offset": offset, "length": n})
		}
		offset += n + 1
	}
	return entities
}

// Bot is the fake's own user, as getMe returns it.
func (s *Server) Bot() User {
	return User{ID: BotID, IsBot: true, FirstName: "membot", Username: s.Username, HasTopicsEnabled: s.ext.topicsOn.Load()}
}

// BotID is the fake bot's user id.
const BotID = 1

// BotMessage describes a message the bot sent, for a reply_to_message field.
func (s *Server) BotMessage(m Sent) map[string]any {
	return map[string]any{"message_id": m.MessageID, "from": s.Bot(), "date": time.Now().Unix(), "text": m.Text,
		"chat": map[string]any{"id": m.ChatID, "type": chatType(m.ChatID)}}
}

// AddUpdate queues an update with the given field (message, callback_query,
// ...) and returns its update id. A "message" gets a message_id. The id is
// given and the update queued at once, so that updates added concurrently
// are queued in the order of their ids, as Telegram keeps them: otherwise
// a poll could confirm an id past one not queued yet, and lose it.
func (s *Server) AddUpdate(field string, body map[string]any) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, raw := s.newUpdate(field, body)
	s.updates = append(s.updates, raw)
	s.ids = append(s.ids, id)
	s.changed.Broadcast()
	return id
}

// NewUpdate builds an update with the next update id without queueing it
// for getUpdates: for posting to a webhook.
func (s *Server) NewUpdate(field string, body map[string]any) (int64, json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.newUpdate(field, body)
}

// newUpdate gives the update its id; s.mu must be held.
func (s *Server) newUpdate(field string, body map[string]any) (int64, json.RawMessage) {
	s.nextID++
	id := s.nextID
	if field == "message" || field == "edited_message" || field == "channel_post" {
		if _, ok := body["message_id"]; !ok {
			body["message_id"] = id
		}
	}
	raw, _ := json.Marshal(map[string]any{"update_id": id, field: body})
	return id, raw
}

// Webhook returns the URL and secret_token of the webhook the bot set ("" when none).
func (s *Server) Webhook() (url, secret string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.webhook.url, s.webhook.secret
}

// SetWebhook sets a webhook as if an earlier run of the bot had.
func (s *Server) SetWebhook(url, secret string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.webhook.url, s.webhook.secret = url, secret
}

// PostWebhook posts an update to endpoint the way Telegram delivers to a
// webhook, with the secret_token the bot registered, and returns the status.
func (s *Server) PostWebhook(endpoint string, update json.RawMessage) (int, error) {
	_, secret := s.Webhook()
	return PostUpdate(endpoint, secret, update)
}

// PostUpdate posts an update to a webhook endpoint with the given secret
// token header (none when empty) and returns the HTTP status.
func PostUpdate(endpoint, secret string, update json.RawMessage) (int, error) {
	return PostUpdateWith(http.DefaultClient, endpoint, secret, update)
}

// PostUpdateWith is PostUpdate with a client of the caller's (for HTTPS).
func PostUpdateWith(client *http.Client, endpoint, secret string, update json.RawMessage) (int, error) {
	req, err := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader(update))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if secret != "" {
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// Button is an inline keyboard button of a sent message.
type Button struct {
	Text string `json:"text"`
	Data string `json:"callback_data"`
}

// Buttons returns the inline keyboard buttons the message was sent with,
// row after row.
func (m Sent) Buttons() []Button { return buttons(m.Params["reply_markup"]) }

// Buttons returns the message's inline keyboard buttons, row after row.
func (m Message) Buttons() []Button { return buttons(m.ReplyMarkup) }

func buttons(replyMarkup string) []Button {
	var markup struct {
		InlineKeyboard [][]Button `json:"inline_keyboard"`
	}
	json.Unmarshal([]byte(replyMarkup), &markup)
	var out []Button
	for _, row := range markup.InlineKeyboard {
		out = append(out, row...)
	}
	return out
}

// Press queues the callback_query of user from pressing the button with
// callback data on message msg, and returns the callback query's id.
func (s *Server) Press(from User, msg Message, data string) string {
	s.mu.Lock()
	s.nextQuery++
	id := "cbq-" + strconv.FormatInt(s.nextQuery, 10)
	s.mu.Unlock()
	message := map[string]any{"message_id": msg.ID, "date": time.Now().Unix(), "text": msg.Text,
		"chat": map[string]any{"id": msg.ChatID, "type": chatType(msg.ChatID)}}
	if thread := s.TopicOf(msg.ChatID, msg.ID); thread != 0 { // a message in a topic says so
		message["message_thread_id"], message["is_topic_message"] = thread, true
	}
	s.AddUpdate("callback_query", map[string]any{
		"id":            id,
		"from":          from,
		"chat_instance": strconv.FormatInt(msg.ChatID, 10),
		"data":          data,
		"message":       message,
	})
	return id
}

// chatType guesses a chat's type from its id: groups have negative ids.
func chatType(chatID int64) string {
	if chatID < 0 {
		return "group"
	}
	return "private"
}

// WaitCall waits until the bot made a call of method for which cond holds,
// up to timeout, and returns it.
func (s *Server) WaitCall(method string, timeout time.Duration, cond func(Call) bool) (Call, bool) {
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() { s.mu.Lock(); s.changed.Broadcast(); s.mu.Unlock() })
	defer timer.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for _, c := range s.calls {
			if c.Method == method && cond(c) {
				return c, true
			}
		}
		if time.Now().After(deadline) {
			return Call{}, false
		}
		s.changed.Wait()
	}
}

// AddRawUpdate queues an update exactly as given (it must have update_id).
func (s *Server) AddRawUpdate(raw string) {
	var head struct {
		UpdateID int64 `json:"update_id"`
	}
	json.Unmarshal([]byte(raw), &head)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.updates = append(s.updates, json.RawMessage(raw))
	s.ids = append(s.ids, head.UpdateID)
	s.changed.Broadcast()
}

// Pending is how many updates the bot has not confirmed yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.updates)
}

// Sent returns a copy of the messages sent so far.
func (s *Server) Sent() []Sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sent(nil), s.sent...)
}

// SentTo returns the texts of the messages in one chat, in order, as they
// stand now: a message edited while an answer streamed counts once, with its
// final text. Sent has every call.
func (s *Server) SentTo(chatID int64) []string {
	var texts []string
	for _, m := range s.Messages(chatID) {
		texts = append(texts, m.Text)
	}
	return texts
}

// Messages returns the messages of one chat as they stand now (after edits,
// without the deleted ones), in the order they were sent.
func (s *Server) Messages(chatID int64) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Message, 0, len(s.messages[chatID]))
	for _, m := range s.messages[chatID] {
		out = append(out, *m)
	}
	return out
}

// Calls returns the calls of one method (all when method is "").
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// WaitSent waits until at least n messages were sent, up to timeout; it
// returns what was sent and whether n was reached.
func (s *Server) WaitSent(n int, timeout time.Duration) ([]Sent, bool) {
	return s.WaitFor(timeout, func(sent []Sent) bool { return len(sent) >= n })
}

// WaitFor waits until cond holds for the sent messages, up to timeout. cond
// runs with the server locked: it must not call the server's methods.
func (s *Server) WaitFor(timeout time.Duration, cond func([]Sent) bool) ([]Sent, bool) {
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() { s.mu.Lock(); s.changed.Broadcast(); s.mu.Unlock() })
	defer timer.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for !cond(s.sent) {
		if time.Now().After(deadline) {
			return append([]Sent(nil), s.sent...), false
		}
		s.changed.Wait()
	}
	return append([]Sent(nil), s.sent...), true
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/file/") {
		s.serveFile(w, r)
		return
	}
	prefix := "/bot" + s.Token + "/"
	if !strings.HasPrefix(r.URL.Path, prefix) {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"ok": false, "error_code": 401, "description": "Unauthorized"})
		return
	}
	call := Call{Method: strings.TrimPrefix(r.URL.Path, prefix), Params: params(r), At: time.Now()}
	s.mu.Lock()
	s.calls = append(s.calls, call)
	s.changed.Broadcast()
	fault := s.takeFault(call)
	handler := s.handlers[call.Method]
	s.mu.Unlock()

	if fault != nil && (fault.Delay > 0 || fault.Hold != nil) {
		var delay <-chan time.Time // nil: wait for Hold alone
		if fault.Delay > 0 {
			delay = time.After(fault.Delay)
		}
		select {
		case <-delay:
		case <-fault.Hold:
		case <-r.Context().Done():
			return // the client gave up: nothing happened
		}
		if fault.Status == 0 {
			fault = nil // only slow: answer normally
		}
	}
	if fault == nil && handler != nil {
		var result any
		if result, fault = handler(call); fault == nil {
			writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": result})
			return
		}
	}
	if fault != nil {
		writeFault(w, fault)
		return
	}
	result, fault := s.result(r, call)
	if fault != nil {
		writeFault(w, fault)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": result})
}

func (s *Server) takeFault(c Call) *Fault {
	for i, f := range s.faults {
		if f.Method == c.Method && (f.If == nil || f.If(c)) {
			f.Times--
			if f.Times <= 0 {
				s.faults = append(s.faults[:i], s.faults[i+1:]...)
			}
			return f
		}
	}
	return nil
}

func writeFault(w http.ResponseWriter, f *Fault) {
	body := map[string]any{"ok": false, "error_code": f.Status, "description": f.Message}
	if f.RetryAfter > 0 {
		body["parameters"] = map[string]any{"retry_after": f.RetryAfter}
	}
	writeJSON(w, f.Status, body)
}

// result answers the methods membot uses.
func (s *Server) result(r *http.Request, c Call) (any, *Fault) {
	if f := s.checkThreadParam(c); f != nil {
		return nil, f
	}
	if result, fault, ok := s.rich(c); ok { // rich.go
		return result, fault
	}
	switch c.Method {
	case "getMe":
		return s.Bot(), nil
	case "getUpdates":
		if url, _ := s.Webhook(); url != "" {
			return nil, &Fault{Status: http.StatusConflict,
				Message: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"}
		}
		return s.getUpdates(r, c), nil
	case "setWebhook":
		if !strings.HasPrefix(c.Params["url"], "https://") {
			return nil, badRequest("Bad Request: bad webhook: An HTTPS URL must be provided for webhook")
		}
		s.SetWebhook(c.Params["url"], c.Params["secret_token"])
		return true, nil
	case "deleteWebhook":
		s.SetWebhook("", "")
		return true, nil
	case "getWebhookInfo":
		url, _ := s.Webhook()
		return map[string]any{"url": url, "pending_update_count": s.Pending()}, nil
	case "sendMessage", "editMessageText", "sendDocument":
		return s.record(c)
	case "deleteMessage", "editMessageReplyMarkup":
		return s.change(c)
	case "sendChatAction", "setMyCommands", "answerCallbackQuery", "setChatMenuButton", "leaveChat":
		return true, nil
	case "getChatMember":
		return s.chatMember(c)
	case "getFile":
		return s.getFile(c)
	case "sendVoice":
		return s.sendVoice(c)
	case "sendPhoto":
		return s.sendPhoto(c)
	}
	if result, fault, ok := s.newer(c); ok {
		return result, fault
	}
	return nil, &Fault{Status: http.StatusNotFound, Message: "Not Found: method not found"}
}

// getUpdates drops what the offset confirms and long-polls for the rest.
func (s *Server) getUpdates(r *http.Request, c Call) []json.RawMessage {
	offset, _ := strconv.ParseInt(c.Params["offset"], 10, 64)
	timeout, _ := strconv.Atoi(c.Params["timeout"])
	limit, _ := strconv.Atoi(c.Params["limit"])
	if limit <= 0 || limit > 100 {
		limit = 100
	}
	deadline := time.Now().Add(time.Duration(timeout) * time.Second)
	stop := time.AfterFunc(time.Duration(timeout)*time.Second, func() { s.mu.Lock(); s.changed.Broadcast(); s.mu.Unlock() })
	defer stop.Stop()
	done := r.Context().Done()
	go func() { <-done; s.mu.Lock(); s.changed.Broadcast(); s.mu.Unlock() }()

	s.mu.Lock()
	defer s.mu.Unlock()
	if offset > s.confirm {
		s.confirm = offset
	}
	for {
		for len(s.ids) > 0 && s.ids[0] < s.confirm {
			s.ids, s.updates = s.ids[1:], s.updates[1:]
		}
		if len(s.updates) > 0 || time.Now().After(deadline) || r.Context().Err() != nil {
			n := min(limit, len(s.updates))
			return append([]json.RawMessage{}, s.updates[:n]...)
		}
		s.changed.Wait()
	}
}

// badRequest is Telegram's 400 answer with its description.
func badRequest(description string) *Fault {
	return &Fault{Status: http.StatusBadRequest, Message: description}
}

// record stores a sent or edited message and returns it as Telegram would,
// or refuses it as Telegram would: bad HTML, an empty or too long text, an
// edit of a message that is not there or that changes nothing.
func (s *Server) record(c Call) (any, *Fault) {
	chatID, _ := strconv.ParseInt(c.Params["chat_id"], 10, 64)
	replyTo, _ := strconv.ParseInt(c.Params["reply_to_message_id"], 10, 64)
	raw := c.Params["text"]
	if c.Method == "sendDocument" {
		raw = c.Params["caption"]
	}
	text, entities := raw, []Entity(nil)
	if strings.EqualFold(c.Params["parse_mode"], "HTML") {
		var err error
		if text, entities, err = ParseHTML(raw); err != nil {
			return nil, badRequest(err.Error())
		}
	}
	switch n := utf16Len(text); {
	case c.Method != "sendDocument" && strings.TrimSpace(text) == "":
		return nil, badRequest("Bad Request: message text is empty")
	case c.Method != "sendDocument" && n > 4096:
		return nil, badRequest("Bad Request: message is too long")
	case c.Method == "sendDocument" && n > 1024:
		return nil, badRequest("Bad Request: message caption is too long")
	case c.Method == "sendDocument" && len(c.Params["document"]) > MaxUploadBytes:
		return nil, &Fault{Status: http.StatusRequestEntityTooLarge, Message: "Request Entity Too Large"}
	}

	var sent *Sent
	var onSent func(Sent)
	defer func() { // after the unlock below
		if sent != nil && onSent != nil {
			onSent(*sent)
		}
	}()
	s.mu.Lock()
	defer s.mu.Unlock()
	var msg *Message
	if c.Method == "editMessageText" {
		id, _ := strconv.ParseInt(c.Params["message_id"], 10, 64)
		if msg = s.find(chatID, id); msg == nil {
			return nil, badRequest("Bad Request: message to edit not found")
		}
		if msg.Text == text && reflect.DeepEqual(msg.Entities, entities) && msg.ReplyMarkup == c.Params["reply_markup"] {
			return nil, badRequest("Bad Request: message is not modified: specified new message content and reply markup " +
				"are exactly the same as a current content and reply markup of the message")
		}
		msg.Text, msg.Entities, msg.ReplyMarkup = text, entities, c.Params["reply_markup"]
		msg.Edits++
	} else {
		s.nextMsg[chatID]++
		msg = &Message{ChatID: chatID, ID: 100000 + s.nextMsg[chatID], Text: text, Entities: entities,
			ReplyMarkup: c.Params["reply_markup"], ReplyTo: replyTo}
		if c.Method == "sendDocument" {
			msg.Document = &Document{Name: c.Params["document#filename"], Content: c.Params["document"], Caption: text}
		}
		s.messages[chatID] = append(s.messages[chatID], msg)
	}
	sent = &Sent{Method: c.Method, ChatID: chatID, MessageID: msg.ID, Text: text, Entities: entities,
		ReplyTo: replyTo, Params: c.Params, At: c.At}
	s.sent = append(s.sent, *sent)
	onSent = s.onSent
	s.changed.Broadcast()
	return map[string]any{"message_id": msg.ID, "from": s.Bot(), "date": time.Now().Unix(), "text": text,
		"chat": map[string]any{"id": chatID, "type": "private"}}, nil
}

// change deletes a message or replaces its buttons.
func (s *Server) change(c Call) (any, *Fault) {
	chatID, _ := strconv.ParseInt(c.Params["chat_id"], 10, 64)
	id, _ := strconv.ParseInt(c.Params["message_id"], 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	msg := s.find(chatID, id)
	switch {
	case msg == nil && c.Method == "deleteMessage":
		return nil, badRequest("Bad Request: message to delete not found")
	case msg == nil:
		return nil, badRequest("Bad Request: message to edit not found")
	case c.Method == "deleteMessage":
		msgs := s.messages[chatID]
		for i, m := range msgs {
			if m == msg {
				s.messages[chatID] = append(msgs[:i:i], msgs[i+1:]...)
			}
		}
	default:
		msg.ReplyMarkup = c.Params["reply_markup"]
	}
	s.changed.Broadcast()
	return true, nil
}

// find returns a message of the chat, or nil. s.mu must be held.
func (s *Server) find(chatID, id int64) *Message {
	for _, m := range s.messages[chatID] {
		if m.ID == id {
			return m
		}
	}
	return nil
}

// params reads a request's parameters, form-encoded, multipart or JSON.
func params(r *http.Request) map[string]string {
	out := map[string]string{}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		var m map[string]any
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &m)
		for k, v := range m {
			if s, ok := v.(string); ok {
				out[k] = s
			} else {
				b, _ := json.Marshal(v)
				out[k] = string(b)
			}
		}
	case "multipart/form-data":
		r.ParseMultipartForm(32 << 20)
		for k, v := range r.MultipartForm.Value {
			out[k] = v[0]
		}
		for k, files := range r.MultipartForm.File {
			if f, err := files[0].Open(); err == nil {
				b, _ := io.ReadAll(f)
				f.Close()
				out[k] = string(b)
				out[k+"#filename"] = files[0].Filename
			}
		}
	default:
		r.ParseForm()
		for k, v := range r.Form {
			out[k] = v[0]
		}
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client hanging up is its business
}

// CountTo counts the messages of sent that went to chat.
func CountTo(sent []Sent, chat int64) int {
	n := 0
	for _, m := range sent {
		if m.ChatID == chat {
			n++
		}
	}
	return n
}

// SetMember sets a user's status in a chat as getChatMember reports it:
// "creator", "administrator", "member", "restricted", "left" or "kicked".
func (s *Server) SetMember(chatID, userID int64, status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.members == nil {
		s.members = map[[2]int64]string{}
	}
	s.members[[2]int64{chatID, userID}] = status
}

// chatMember answers getChatMember with a ChatMember object.
func (s *Server) chatMember(c Call) (any, *Fault) {
	chatID, err1 := strconv.ParseInt(c.Params["chat_id"], 10, 64)
	userID, err2 := strconv.ParseInt(c.Params["user_id"], 10, 64)
	if err1 != nil || err2 != nil {
		return nil, badRequest("Bad Request: invalid user_id specified")
	}
	s.mu.Lock()
	status, ok := s.members[[2]int64{chatID, userID}]
	s.mu.Unlock()
	if !ok {
		status = "member"
	}
	return map[string]any{"status": status, "user": map[string]any{"id": userID, "is_bot": false, "first_name": "someone"}}, nil
}
