// Package bot is membot's Telegram side above the wire: it decides whether
// an update is for the bot and what the model gets (routing.go), admits it
// through the gate (bot/gate: the allowlist or the owner's pairing, and
// the limits), answers commands and button presses, and hands text to the
// agent and its answer to bot/present (answer.go).
//
// Below it: the gate (bot/gate), the Bot API client (bot/telegram), how answers are shown
// (bot/present), intake and per-chat dispatch (bot/inbox), the texts
// (bot/texts), what files become (bot/media), /export's documents
// (bot/export) and the reminder scheduler (bot/remind). The purger of reset
// conversations is memory/purge. bot never writes SQL: it goes through
// memory's repository.
package bot
