package telegramfake

import (
	"net/http"
	"strconv"
	"unicode/utf8"
)

// Topics in private chats (Bot API 9.3; createForumTopic for bots since
// 9.4), as documented: a bot whose owner enabled topics has
// has_topics_enabled in getMe; its private chats may then have topics,
// created by the user or by createForumTopic (name 1-128 characters), and
// renamed with editForumTopic (name 0-128 characters). A message, draft or
// document sent with a message_thread_id that is not a topic of the chat
// is refused.

// Topic is a topic of a private chat.
type Topic struct {
	ID   int64
	Name string
}

// EnableTopics turns topics on for the bot (getMe's has_topics_enabled).
func (s *Server) EnableTopics() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ext.topicsOn.Store(true)
}

// CreateTopic opens a topic in a private chat as its user would, and
// returns its id.
func (s *Server) CreateTopic(chatID int64, name string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addTopic(chatID, name)
}

// Topics returns a chat's topics, in order of creation.
func (s *Server) Topics(chatID int64) []Topic {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Topic(nil), s.ext.topics[chatID]...)
}

// SendInTopic queues a private text message from user in a topic and
// returns its update id.
func (s *Server) SendInTopic(from User, thread int64, text string) int64 {
	msg := TextMessage(from.ID, "private", from, text)
	msg["message_thread_id"], msg["is_topic_message"] = thread, true
	return s.AddUpdate("message", msg)
}

// SendInForumTopic queues a text message from user in a topic of a forum
// supergroup and returns its update id.
func (s *Server) SendInForumTopic(chatID int64, from User, thread int64, text string) int64 {
	msg := TextMessage(chatID, "supergroup", from, text)
	msg["message_thread_id"], msg["is_topic_message"] = thread, true
	return s.AddUpdate("message", msg)
}

// addTopic adds a topic; s.mu must be held.
func (s *Server) addTopic(chatID int64, name string) int64 {
	if s.ext.topics == nil {
		s.ext.topics = map[int64][]Topic{}
	}
	s.nextMsg[chatID]++ // a topic's id is the id of the message that opened it
	id := 100000 + s.nextMsg[chatID]
	s.ext.topics[chatID] = append(s.ext.topics[chatID], Topic{ID: id, Name: name})
	return id
}

// topicExists reports whether thread is a topic of the chat. s.mu must be
// held.
func (s *Server) topicExists(chatID, thread int64) bool {
	for _, t := range s.ext.topics[chatID] {
		if t.ID == thread {
			return true
		}
	}
	return false
}

// checkThreadParam refuses a call whose message_thread_id is not a topic
// of its chat.
func (s *Server) checkThreadParam(c Call) *Fault {
	if c.Params["message_thread_id"] == "" || c.Method == "sendMessageDraft" {
		return nil // drafts check their own
	}
	chatID, _ := strconv.ParseInt(c.Params["chat_id"], 10, 64)
	return s.checkThread(chatID, threadOf(c.Params))
}

func (s *Server) createForumTopic(c Call) (any, *Fault) {
	chatID, _ := strconv.ParseInt(c.Params["chat_id"], 10, 64)
	name := c.Params["name"]
	switch n := utf8.RuneCountInString(name); {
	case chatType(chatID) == "private" && !s.ext.topicsOn.Load():
		return nil, badRequest("Bad Request: the bot has no topics in private chats")
	case n < 1 || n > 128:
		return nil, badRequest("Bad Request: TOPIC_TITLE_EMPTY or too long")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.addTopic(chatID, name)
	return map[string]any{"message_thread_id": id, "name": name, "icon_color": 7322096}, nil
}

func (s *Server) editForumTopic(c Call) (any, *Fault) {
	chatID, _ := strconv.ParseInt(c.Params["chat_id"], 10, 64)
	thread := threadOf(c.Params)
	name := c.Params["name"]
	if utf8.RuneCountInString(name) > 128 {
		return nil, badRequest("Bad Request: TOPIC_TITLE_TOO_LONG")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, t := range s.ext.topics[chatID] {
		if t.ID == thread {
			if name != "" {
				s.ext.topics[chatID][i].Name = name
			}
			return true, nil
		}
	}
	return nil, &Fault{Status: http.StatusBadRequest, Message: "Bad Request: message thread not found"}
}

// TopicOf returns the topic a message of the chat was sent to (0: none).
func (s *Server) TopicOf(chatID, messageID int64) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.sent {
		if m.ChatID == chatID && m.MessageID == messageID && m.Method != "editMessageText" {
			return threadOf(m.Params)
		}
	}
	return 0
}
