package telegramfake

// topicExists reports whether thread is a topic of the chat. s.mu must be
// held.
func (s *Server) topicExists(chatID, thread int64) bool {
	return false
}
