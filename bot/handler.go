package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/agent/images"
	"github.com/membot/membot/agent/mcptools"
	"github.com/membot/membot/agent/modes"
	"github.com/membot/membot/bot/gate"
	"github.com/membot/membot/bot/media"
	"github.com/membot/membot/bot/present"
	"github.com/membot/membot/bot/stop"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/bot/weblink"
	"github.com/membot/membot/internal/filetext"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
)

// Agent answers a text message, or the last one again, and goes on with a
// turn that waited for approval once it is decided.
type Agent interface {
	Reply(ctx context.Context, req agent.Request) (*agent.Reply, error)
	Regenerate(ctx context.Context, req agent.Request) (*agent.Reply, error)
	Resume(ctx context.Context, req agent.ResumeRequest) (*agent.Reply, error)
	// DescribeCall and CannotRun: approve.Agent.
	DescribeCall(name, arguments string) (string, error)
	CannotRun(ctx context.Context, ap memory.Approval) error
	// Tools are the tools the model is offered now (/tools), and
	// AsksFirstIn tells whether a tool's calls by a user in a chat (a
	// private chat or a group) wait for approval.
	Tools() []agent.Tool
	AsksFirstIn(tool agent.Tool, user, chat int64) bool
	// Transcribe turns a recording into text; Keep stores a message
	// without answering it (an album's photos before its last).
	Transcribe(ctx context.Context, req agent.TranscribeRequest) (string, error)
	Keep(ctx context.Context, req agent.Request) error
	// CanSpeak and Speak say answers aloud (/voice).
	CanSpeak() bool
	Speak(ctx context.Context, req agent.SpeakRequest) ([]byte, error)
}

// Inbox is what the handler reaches the inbox of updates for, while a
// turn runs (memory.Store.Inbox implements it).
type Inbox interface {
	stop.Requests    // stop.go (bot/stop)
	ShownStore       // answer.go
	media.AlbumStore // media.go: an album's later photos
}

// Handler turns one Telegram update into the bot's answer. Its fields are
// fixed once it handles its first update: the routes and the gate are
// built from them then, once.
type Handler struct {
	Client *telegram.Client
	Agent  Agent
	// Stores keep what the handler reads and writes, one per domain.
	Stores  Stores
	Log     *slog.Logger
	Metrics Metrics
	Modes   *modes.Set // the built-in modes when nil
	Models  []string   // the models /model offers, the default first
	// TypingEvery is how often "typing…" is refreshed while the model works.
	TypingEvery time.Duration
	// ConversationsReset, when set, is called after /new: the conversations
	// it left are deleted in the background (purge.Purger.Wake).
	ConversationsReset func()
	// Files reads the documents people send (bot/media): a PDF in a parser
	// process under its limits, one at a time per user.
	Files *filetext.Reader
	// Images draws pictures (/image); nil or without IMAGE_MODEL: off.
	Images *images.Painter
	// MCPServers, when set, says what each MCP server is doing (/tools).
	MCPServers func() []mcptools.Status
	// Web is the web interface (/web, /memory's Mini App); nil: none.
	Web weblink.Pages
	// Config is the settings: access, how answers are shown, media.
	Config

	routesOnce sync.Once
	table      *routes // what the bot answers: see newRoutes

	gateOnce sync.Once
	gk       *gate.Gate // who may use the bot and how much: see gate
}

// incoming is a message, or a press of one of the bot's buttons, being handled.
type incoming struct {
	update  *queue.Update
	decoded *tgbotapi.Update // the update's payload, decoded once by Handle
	// thread is the topic of the private chat the update belongs to (0:
	// none): its conversation is the topic's, and everything is sent there
	// (threads.go).
	thread int64
	msg    *tgbotapi.Message // for a button press, the message that has the button
	edited bool              // msg is an edit: the answer quotes it
	user   memory.User       // who wrote, or pressed
	query  *tgbotapi.CallbackQuery
	// run, when set, is the scheduled task this update is a run of
	// (scheduled.go): it is routed already.
	run *queue.TaskRun
	// delivery is set by a command that answers with a stored assistant row
	// (/retry), so that where it was delivered is recorded.
	delivery *queue.Delivery
	route    route // what routing decided
	// turn is set by what ran a turn of the model (an answer, /retry, an
	// approval's resumption): its outcome is counted in the metrics.
	turn bool
	// attachments are the files of the message (media.go), kind its kind
	// for the message_received event.
	attachments []agent.Attachment
	kind        string
	// tokens the turn's model calls took, and whether it waits for an
	// approval (for its log line, turnlog.go).
	tokens int
	paused bool
}

func (in *incoming) lang() string { return in.user.LanguageCode }

// chat is where answers to in go: its chat, in its topic.
func (in *incoming) chat() telegram.Chat { return telegram.Chat{ID: in.msg.Chat.ID, Thread: in.thread} }

// conversation is the chat whose current conversation in reads and
// changes: its chat, in its topic.
func (in *incoming) conversation() memory.Chat {
	return memory.Chat{ID: in.msg.Chat.ID, Thread: in.thread}
}

// tr is the bot's texts in the language of a Telegram language_code.
func tr(languageCode string) *texts.Texts { return texts.For(languageCode) }

// Handle handles one update. It implements inbox.UpdateHandler. What is
// answered and how is decided by routeUpdate (routing.go); every update it
// answers then goes through the middleware chain (middleware.go).
func (h *Handler) Handle(ctx context.Context, u *queue.Update) (*queue.Delivery, error) {
	if u.Run != nil {
		return h.chain(h.runTask)(ctx, scheduledRun(u))
	}
	decoded, thread, err := h.Client.DecodeUpdate(u.Payload)
	if err != nil {
		return nil, fmt.Errorf("decode update: %w", err)
	}
	in := &incoming{update: u, decoded: decoded, thread: thread}
	return h.chain(h.act)(ctx, in)
}

// GiveUp tells the chat of an update that will not be handled (runs died
// with it in hand: inbox.Dispatcher.GiveUpAfter) the bot's apology, when
// routing says the update is for the bot at all. It implements
// inbox.UpdateHandler.
func (h *Handler) GiveUp(ctx context.Context, u *queue.Update) error {
	if u.Run != nil {
		return h.reply(ctx, scheduledRun(u), tr(u.Run.From.LanguageCode).Apology)
	}
	decoded, thread, err := h.Client.DecodeUpdate(u.Payload)
	if err != nil {
		return nil // nowhere to apologise
	}
	in := &incoming{update: u, decoded: decoded, thread: thread}
	_, err = h.routed(func(ctx context.Context, in *incoming) (*queue.Delivery, error) {
		return nil, h.reply(ctx, in, tr(in.lang()).Apology)
	})(ctx, in)
	return err
}

// act does what routing decided for an update the chain let through.
func (h *Handler) act(ctx context.Context, in *incoming) (*queue.Delivery, error) {
	switch {
	case in.query != nil:
		return h.callback(ctx, in)
	case in.route.action == runCommand:
		err := h.command(ctx, in, in.route.command)
		return in.delivery, err
	case in.route.action == textOnly:
		return nil, h.reply(ctx, in, tr(in.lang()).TextOnly)
	case in.route.action == withMedia:
		return h.media(ctx, in)
	}
	return h.converse(ctx, in, in.route.text)
}

// sentAt is when the person wrote what is answered: the message's date, or
// its edit's; zero for a button press (its message is the bot's).
func sentAt(in *incoming) time.Time {
	switch {
	case in.query != nil:
		return time.Time{}
	case in.edited && in.msg.EditDate > 0:
		return time.Unix(int64(in.msg.EditDate), 0)
	case in.msg.Date > 0:
		return time.Unix(int64(in.msg.Date), 0)
	}
	return time.Time{}
}

// reply sends one of the bot's own texts, with rows of buttons under it.
func (h *Handler) reply(ctx context.Context, in *incoming, text string, buttons ...[]telegram.Button) error {
	_, err := h.send(ctx, in, text, buttons...)
	if err == nil {
		orNone(h.Metrics).ReplySent("text")
	}
	return err
}

// send delivers text to the message's chat, split to Telegram's limit.
// Failures that may pass are marked for a later retry; the others are
// final.
func (h *Handler) send(ctx context.Context, in *incoming, text string, buttons ...[]telegram.Button) ([]int64, error) {
	return h.presenter().Text(ctx, to(in), text, buttons...)
}

// presenter shows text in chats: how an answer is shown is bot/present's.
func (h *Handler) presenter() *present.Presenter {
	return &present.Presenter{Client: h.Client, Log: h.Log, Config: h.Present}
}

// to is where what answers in goes: its chat, in its topic, replying to
// replyTo(in).
func to(in *incoming) present.To { return present.To{Chat: in.chat(), ReplyTo: replyTo(in)} }

// replyTo is the message an answer replies to: in groups the one answered,
// to make clear whom the bot answers, and an edited message, to make clear
// what; none otherwise in private chats.
func replyTo(in *incoming) int {
	if in.msg.Chat.IsPrivate() && !in.edited {
		return 0
	}
	return in.msg.MessageID
}

// Transient tells whether a failed update may succeed if handled again
// later: the database or Telegram could not be reached. The dispatcher
// asks it (Dispatcher.Transient); any other failure gives the update up.
func Transient(err error) bool {
	return errors.Is(err, memory.ErrUnavailable) || telegram.Transient(err)
}

// clock shows t in the bot's zone.
func (h *Handler) clock(t time.Time) string { return texts.Clock(t, h.Access.Zone()) }

func userOf(u *tgbotapi.User) memory.User {
	return memory.User{TelegramUserID: u.ID, Username: u.UserName, FirstName: u.FirstName,
		LastName: u.LastName, LanguageCode: u.LanguageCode}
}
