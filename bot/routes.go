package bot

import (
	"context"

	"github.com/membot/membot/bot/approve"
	"github.com/membot/membot/bot/choice"
	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/draw"
	"github.com/membot/membot/bot/export"
	"github.com/membot/membot/bot/facts"
	"github.com/membot/membot/bot/gate"
	"github.com/membot/membot/bot/remind"
	"github.com/membot/membot/bot/tasks"
	"github.com/membot/membot/bot/tools"
	"github.com/membot/membot/bot/usage"
	"github.com/membot/membot/bot/weblink"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
)

// commandFunc answers a command; errors follow the rules of Handler.send.
type commandFunc func(ctx context.Context, h *Handler, in *incoming) error

// callbackFunc handles the press of an inline button whose callback data
// was "prefix:arg" (in.query is the press; in.msg the message with the
// button); it must answer the callback query. Like a turn, it may return
// the delivery of an answer it sent.
type callbackFunc func(ctx context.Context, h *Handler, in *incoming, arg string) (*queue.Delivery, error)

// commandSpec is one command the bot answers. Its one-line description is
// the text helpKey(name), in both languages.
type commandSpec struct {
	name string
	// do answers a command its package serves; run one that the turn's
	// code answers here (it reads the update itself).
	do  command.Func
	run commandFunc
	// adminOnly commands answer ADMIN_USER_IDS only (anyone else is told
	// they are for admins), are listed in admins' /help only and never in
	// the menu.
	adminOnly bool
	// callsModel commands spend tokens: DAILY_TOKEN_LIMIT stops them as it
	// stops a message.
	callsModel bool
	// groupAdmins commands change or reveal what the whole group shares (its
	// conversation, mode, model, reminders, approvals): in a group only its
	// admins (and the bot's) may use them.
	groupAdmins bool
}

// buttonSpec is one kind of inline button the bot sends, by the prefix of
// its callback data.
type buttonSpec struct {
	// do handles a press its package serves (it must answer the press: a
	// Call's Notify); run one that the turn's code handles here.
	do  command.Func
	run callbackFunc
	// callsModel buttons go on with a turn of the model: DAILY_TOKEN_LIMIT
	// stops them as it stops a message.
	callsModel bool
	// groupAdmins buttons, like such commands, are for a group's admins.
	groupAdmins bool
}

// routes is everything the bot answers besides plain text: its commands,
// in the order /help and Telegram's menu list them, and its buttons, by
// callback-data prefix.
type routes struct {
	commands  []commandSpec
	callbacks map[string]buttonSpec
}

// newRoutes is the one place that lists what the bot answers, with the
// command packages built from the handler's parts.
func newRoutes(h *Handler) *routes {
	g := h.gate()
	web := weblink.Commands{Pages: h.Web, Sender: h.Client, Log: h.Log}
	facts := facts.Commands{Store: h.Stores.Facts, OfferApp: web.OfferApp}
	exports := export.Commands{Transcripts: h.Stores.Transcripts, Events: h.Stores.Events, Documents: h.Client,
		Clock: &h.Access, PartBytes: h.ExportPartBytes, PerHour: h.ExportsPerHour}
	reminders := remind.Commands{Store: h.Stores.Reminders, Zone: &h.Access}
	taskList := tasks.Commands{Store: h.Stores.Reminders, Zone: &h.Access}
	approvals := approve.Commands{Store: h.Stores.Approvals, Prompts: h.approvals()}
	pictures := draw.Commands{Painter: h.Images, DailyTokenLimit: h.Access.DailyTokenLimit, Log: h.Log,
		Typing: func(ctx context.Context, c command.Call) func() {
			return h.presenter().Typing(ctx, c.To(), h.TypingEvery)
		}}
	use := usage.Commands{Store: h.Stores.Usage, Calendar: &h.Access, DailyTokenLimit: h.Access.DailyTokenLimit}
	toolList := tools.Commands{Agent: h.Agent, Servers: h.MCPServers}
	choices := choice.Commands{Models: choice.Models{Names: h.Models, Store: h.Stores.Choices},
		Modes: choice.Modes{Modes: h.Modes, Store: h.Stores.Choices}, Voice: h.Stores.Choices, Speaker: h.Agent}
	return &routes{
		commands: []commandSpec{
			{name: "start", run: cmdStart},
			{name: "help", run: cmdHelp},
			{name: "new", run: cmdNew, groupAdmins: true},
			{name: "retry", run: cmdRetry, callsModel: true, groupAdmins: true},
			{name: "stop", run: cmdStop},
			{name: "undo", run: cmdUndo, groupAdmins: true},
			{name: "history", do: exports.History},
			{name: "mode", do: choices.Mode, groupAdmins: true},
			{name: "model", do: choices.Model, groupAdmins: true},
			{name: "export", do: exports.Export, groupAdmins: true},
			{name: "memory", do: facts.Memory},
			{name: "forget", do: facts.Forget},
			{name: "reminders", do: reminders.Reminders},
			{name: "cancel_reminder", do: reminders.CancelReminder}, // a member: their own (Call.OwnRows)
			{name: "tasks", do: taskList.Tasks},
			{name: "approvals", do: approvals.Approvals}, // a member: their own (Call.OwnRows)
			{name: "tools", do: toolList.Tools},
			{name: "usage", do: use.Usage},
			{name: "voice", do: choices.VoiceReplies, groupAdmins: true},
			{name: "image", do: pictures.Image, callsModel: true},
			{name: "stats", do: use.Stats, adminOnly: true},
			{name: "user", do: use.User, adminOnly: true},
			{name: "web", do: web.Web, adminOnly: true},
			{name: "users", do: g.Users, adminOnly: true},
		},
		callbacks: map[string]buttonSpec{
			"approve":           {run: decide(memory.ApprovalApproved), callsModel: true},
			"reject":            {run: decide(memory.ApprovalRejected), callsModel: true},
			approve.WholePrefix: {run: showWhole},
			"mode":              {do: choices.PressMode, groupAdmins: true},
			"model":             {do: choices.PressModel, groupAdmins: true},
			"thread":            {run: pressNewThread},
			"stop":              {run: pressStop},
			tasks.Prefix:        {do: taskList.Press}, // a member: their own (Call.OwnRows)
			gate.PairPrefix:     {do: g.PressPair},    // the owner and admins only
			gate.UsersPrefix:    {do: g.PressUsers},   // the owner and admins only
		},
	}
}

// command finds a command by name.
func (r *routes) command(name string) (commandSpec, bool) {
	for _, c := range r.commands {
		if c.name == name {
			return c, true
		}
	}
	return commandSpec{}, false
}

// listed is the commands shown in /help (the admin ones only to admins)
// and, with forAdmin false, in the menu.
func (r *routes) listed(forAdmin bool) []commandSpec {
	var list []commandSpec
	for _, c := range r.commands {
		if forAdmin || !c.adminOnly {
			list = append(list, c)
		}
	}
	return list
}

// routes are built once per handler.
func (h *Handler) routes() *routes {
	h.routesOnce.Do(func() { h.table = newRoutes(h) })
	return h.table
}
