// Package bot is membot's Telegram side above the wire: it decides whether
// an update is for the bot and what the model gets (routing.go), admits it
// through the gate (bot/gate: the allowlist or the owner's pairing, and
// the limits), routes commands and button
// presses (routes.go), and hands text to the agent and its answer to
// bot/present (answer.go). What stays here is routing and the turn: the
// commands and buttons that start, redo, undo, stop or resume a turn.
//
// Every other command lives in a package of its own, with its logic: it
// gets a command.Call (bot/command) and reaches only the interfaces it
// declares — bot/approve (/approvals), bot/choice (/model, /mode, /voice),
// bot/facts (/memory, /forget), bot/export (/export, /history), bot/remind
// (/reminders, /cancel_reminder, and the reminder scheduler), bot/tasks
// (/tasks), bot/draw (/image), bot/usage (/usage, /stats, /user),
// bot/tools (/tools) and bot/weblink (/web, the Mini App's button).
//
// Below it: the gate (bot/gate), the Bot API client (bot/telegram), how answers are shown
// (bot/present), intake and per-chat dispatch (bot/inbox), the texts
// (bot/texts) and what files become (bot/media). The purger of reset
// conversations is memory/purge. bot never writes SQL: it goes through
// memory's stores.
package bot
