// Package bot is membot's Telegram side above the wire: it decides whether
// an update is for the bot and what the model gets (routing.go), admits it
// through the allowlist and limits (access.go), answers commands and
// button presses, hands text to the agent and streams or sends its answer,
// and runs the background jobs that write to chats (the reminder
// scheduler). The purger of reset conversations is memory/purge.
//
// The Bot API client lives in bot/telegram; intake and per-chat dispatch
// in bot/inbox. bot never writes SQL: it goes through memory's repository.
package bot
