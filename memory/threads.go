package memory

// Threads: in a private chat with topics, each topic is a conversation of
// its own (conversations.message_thread_id). The methods that find or
// write a chat's current conversation take a Chat, whose Thread is the
// topic; their statements match it as an ordinary parameter. Thread 0
// (groups, chats without topics, background jobs) means no topic, as
// before topics existed.

// Chat is where a conversation happens: a chat, and in a private chat with
// topics the topic (Telegram's message_thread_id; 0 for none).
type Chat struct {
	ID     int64
	Thread int64
}
