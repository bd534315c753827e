// Package agent runs one conversation turn: it stores the user's message,
// builds the model's context from the conversation's recent rows and the
// user's long-term facts, calls an OpenAI-compatible model, runs the tools it
// asks for (pausing for a person's approval where one is needed), and stores
// every step. It knows nothing of Telegram.
package agent

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/agent/modes"
	"github.com/membot/membot/agent/request"
	"github.com/membot/membot/internal/stamp"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
)

// ErrModel wraps failures of the model call that retries did not cure.
var ErrModel = errors.New("model call failed")

// Store is the part of the memory repository a turn needs.
type Store interface {
	StartTurn(ctx context.Context, in memory.TurnStart) (*memory.Turn, error)
	StartRetry(ctx context.Context, in memory.RetryStart) (*memory.Turn, error)
	ResumeTurn(ctx context.Context, in memory.ResumeStart) (*memory.Turn, error)
	SaveStep(ctx context.Context, conversationID string, st memory.Step) ([]int64, error)
	PauseForApproval(ctx context.Context, conversationID string, st memory.Step, requests []memory.Approval) ([]memory.Approval, error)
	// ApprovalPin is the pin stored with an approval (Pin, as JSON), ""
	// when it has none.
	ApprovalPin(ctx context.Context, id int64) (string, error)
}

// Metrics is what a turn reports for monitoring; nil reports nothing.
type Metrics interface {
	// LLMRequest is one attempt of a model call; status is "ok", the HTTP
	// status of a failure, "timeout", "network" or "error".
	LLMRequest(model, status string, took time.Duration)
	ToolCall(tool string, err error)
}

// Config holds the settings of a turn: what an operator sets. The
// collaborators a turn works with are Parts.
type Config struct {
	Model string // the default model (OPENAI_MODEL)
	// Models are the models /model offers, the default among them, with
	// what their servers refuse (MODELS). Which server each is asked at
	// is the wiring's: Parts.Servers.
	Models        []Model
	SystemPrompt  string     // the base prompt; a conversation's mode adds to it
	Modes         *modes.Set // the built-in modes when nil
	HistoryLimit  int
	Location      *time.Location // the wall clock of the stamps and of current_time
	MaxModelCalls int            // per turn, tool rounds included; 8 when zero
	Retry         RetryPolicy
	// FactChars bounds the user's long-term facts put into the system
	// prompt, newest first; 2000 when zero.
	FactChars int
	// NeedsApproval names the tools whose calls wait for a person's decision.
	NeedsApproval map[string]bool
	// ContextTokens bounds a request's estimated size (CONTEXT_TOKENS):
	// the newest rows that fit are sent, HistoryLimit rows at most. 0: no bound.
	ContextTokens int
	// MaxAnswerTokens bounds an answer (MAX_ANSWER_TOKENS), sent to the
	// server as it expects it; 0 sends none.
	MaxAnswerTokens int

	// What people send besides text (media.go).
	// Vision: VisionAuto ("" too), VisionOn or VisionOff (VISION).
	Vision string
	// ImageHistory is how many of the newest user messages of the window
	// show the model their images (IMAGE_HISTORY); older ones show their marker.
	ImageHistory int
	// TranscriptionModel turns recordings into text (with
	// Parts.Transcriber); either unset: recordings are not transcribed.
	TranscriptionModel string
	// TTSModel and TTSVoice speak answers (/voice, with Parts.Speaker);
	// TTSModel or the speaker unset: answers are not spoken.
	TTSModel string
	TTSVoice string

	// Recall is how many older messages matching the user's message each
	// turn puts into the prompt by itself (AUTO_RECALL), each with the rows
	// around it, within 400 characters a message; 0: none.
	Recall int
}

// Parts are the collaborators a turn works with, which the wiring builds
// and tests replace: the store, the model servers, the tools, and the
// other parts of the bot it calls or tells. Config holds the settings.
type Parts struct {
	Store Store
	// LLM is the default model's server, and that of any model without
	// one in Servers.
	LLM LLM
	// Servers are the servers of the models that have their own (MODELS'
	// base URLs), by model name.
	Servers map[string]LLM
	Tools   *Registry
	Log     *slog.Logger
	Metrics Metrics          // nil reports nothing
	Now     func() time.Time // time.Now when nil

	// IsAdmin tells whether a user is one of the bot's admins: in groups,
	// an MCP tool marked autoApprove runs without asking only for them
	// (unless its server names its own AutoApproveUsers). nil: nobody.
	IsAdmin func(userID int64) bool
	// Files fetches the images of earlier rows again; nil: only the turn's own are sent.
	Files Files
	// Transcriber turns recordings into text (Config.TranscriptionModel).
	Transcriber Transcriber
	// Speaker speaks answers (Config.TTSModel, TTSVoice).
	Speaker Speaker
	// Embedder, when set, makes recall semantic too (EMBEDDINGS_MODEL).
	Embedder Embedder
	// TurnDone, when set, is called after a turn's answer is stored: it
	// wakes the background memory work (memorize.Memorizer.Wake).
	TurnDone func()
}

// Agent answers messages. It is safe for concurrent use by different chats.
type Agent struct {
	cfg   Config
	parts Parts
	// The parts every step uses, at hand.
	store  Store
	llm    LLM
	tools  *Registry
	log    *slog.Logger
	caps   *learned
	warned sync.Map // keys of the warnings logged once
}

// New returns an agent with the settings cfg, working with parts; the
// model is offered the tools of parts.Tools.
func New(cfg Config, parts Parts) *Agent {
	if cfg.MaxModelCalls <= 0 {
		cfg.MaxModelCalls = 8
	}
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
	if cfg.Modes == nil {
		cfg.Modes, _ = modes.New(cfg.SystemPrompt, nil) // the built-ins are valid
	}
	if cfg.FactChars <= 0 {
		cfg.FactChars = 2000
	}
	if cfg.Vision == "" {
		cfg.Vision = VisionAuto
	}
	if parts.Now == nil {
		parts.Now = time.Now
	}
	if parts.Metrics == nil {
		parts.Metrics = noMetrics{}
	}
	if parts.Log == nil {
		parts.Log = slog.New(slog.DiscardHandler)
	}
	caps := &learned{caps: map[string]Capabilities{}, told: map[string]bool{}, log: parts.Log, keepImages: cfg.Vision == VisionOn}
	for _, m := range cfg.Models {
		caps.caps[m.Name] = m.Caps
	}
	return &Agent{store: parts.Store, llm: parts.LLM, tools: parts.Tools, cfg: cfg, parts: parts, log: parts.Log, caps: caps}
}

// Request is one incoming text message.
type Request struct {
	User      memory.User
	Chat      memory.Chat // the chat, and its topic: the conversation written and where reminders go
	UpdateID  int64       // makes the turn resumable after a crash; 0 when none
	MessageID int64       // the Telegram message id of the user's message
	Text      string
	// SentAt is when the person wrote (the message's date, or its edit's):
	// the row's stamp and created_at, so a message that waited behind a
	// busy chat is not dated when it was taken up. Zero (or a time ahead
	// of the clock): now.
	SentAt time.Time
	// Sink, when not nil, gets the answer while the model writes it: the
	// model is then called in streaming mode.
	Sink Sink
	// Attachments are the files the message came with: named in the user
	// row's metadata; an image's Data is shown to the model.
	Attachments []Attachment
	// Kind is the message's kind for the message_received event: "text" when "".
	Kind string
	// Forwarded: Telegram marked the message forwarded (someone else's
	// words): kept in the row's metadata, so the memory work never takes
	// it for the user's own (origins.go).
	Forwarded bool
	// ViaBot is the username of the inline bot the message was sent via
	// ("" for none): that bot wrote its text, not the user (origins.go).
	ViaBot string
	// Scheduled, when set, is the task whose run this turn is: the prompt
	// is Text, and the user row's metadata says so ("scheduled").
	Scheduled *queue.TaskRun
}

// Reply is the turn's answer.
type Reply struct {
	// Outcome is what the turn came to; Answered unless said otherwise.
	Outcome   Outcome
	Text      string
	MessageID int64    // the stored assistant row
	ToolsUsed []string // distinct tool names, in order of first use
	// TelegramMessageID is where the answer was sent, when Delivered.
	TelegramMessageID int64
	// Approvals, when Paused, are those still pending (the ones without a
	// TelegramMessageID need their buttons sent).
	Approvals []memory.Approval
	// Outside, when Paused, is where the text the user did not write, in
	// what the model read when it made the calls, came from (readOutside):
	// why the calls ask first, for the prompts of Approvals.
	Outside []Source
	// Reasoning is the model's thinking behind the answer, apart from it.
	Reasoning string
	// Speak: the chat has its answers spoken too (/voice; Agent.Speak).
	Speak bool
	// First is true for the first exchange of a conversation: the user's
	// message had nothing before it.
	First bool
	// Tokens is what this turn's model calls took, prompt and completion
	// (for the log line of the turn).
	Tokens int
}

// Outcome is what a turn came to.
type Outcome int

const (
	// Answered: the model answered; Text is to be sent.
	Answered Outcome = iota
	// Stopped: the user stopped the answer; Text is what the model had
	// written by then, stored as it is (see ErrStopped).
	Stopped
	// Paused: the turn waits for a person to decide on tool calls (this
	// attempt's, or an earlier one's cut short); Text is empty. The turn
	// goes on with Resume once they are decided.
	Paused
	// Resumed: an earlier attempt had already stored this answer (it
	// crashed before delivering it); the model was not called again.
	Resumed
	// Delivered: as Resumed, and the earlier attempt had even sent it.
	Delivered
)

// factChars is how much of the user's long-term facts a turn in chatID
// sees: they are the user's own, shown in their private chat (whose id is
// the user's) and never in a group, where other members read the answers.
func (a *Agent) factChars(chatID, userID int64) int {
	if chatID != userID {
		return 0
	}
	return a.cfg.FactChars
}

// Reply runs one turn for req and returns the answer to send.
func (a *Agent) Reply(ctx context.Context, req Request) (*Reply, error) {
	start := a.turnStart(req, a.cfg.HistoryLimit)
	if a.cfg.Recall > 0 {
		// Embedding the message is a call to the embeddings server, not to
		// the database: the turn still talks to PostgreSQL four times (five
		// when auto-recall has rows to rank).
		start.Recall = memory.Recall{Limit: a.cfg.Recall, Text: req.Text}
		start.Recall.Embedding, start.Recall.EmbeddingModel = EmbedQuery(ctx, a.parts.Embedder, req.Text, func(err error) {
			a.warnOnce("embed-query", "recall: embedding the message failed; full-text search alone until it works again", "err", err)
		})
	}
	turn, err := a.store.StartTurn(ctx, start)
	if err != nil {
		return nil, err
	}
	return a.answer(ctx, turn, req)
}

// Keep stores the user's message without answering it: the photos of an
// album before its last, which the next turn answers with them.
func (a *Agent) Keep(ctx context.Context, req Request) error {
	_, err := a.store.StartTurn(ctx, a.turnStart(req, 0))
	return err
}

// turnStart is what storing req's user row takes, loading historyLimit rows.
func (a *Agent) turnStart(req Request, historyLimit int) memory.TurnStart {
	written := a.parts.Now()
	if !req.SentAt.IsZero() && req.SentAt.Before(written) {
		written = req.SentAt // stamped with when the person wrote, never ahead of the clock
	}
	in := memory.TurnStart{User: req.User, Chat: req.Chat, UpdateID: req.UpdateID, TelegramMessageID: req.MessageID,
		Content: stamp.Add(written, a.cfg.Location, req.Text), WrittenAt: written, HistoryLimit: historyLimit,
		Metadata: rowMeta(req), Kind: req.Kind}
	if historyLimit > 0 {
		in.FactChars = a.factChars(req.Chat.ID, req.User.TelegramUserID)
	}
	return in
}

// Regenerate answers the chat's last user message again (/retry), once
// memory's Rollback has removed the old answer. req.UpdateID is the
// command's update, and req.Text is not used. It returns
// memory.ErrNoUserMessage when the conversation has no user message.
func (a *Agent) Regenerate(ctx context.Context, req Request) (*Reply, error) {
	turn, err := a.store.StartRetry(ctx, memory.RetryStart{Chat: req.Chat, UserID: req.User.TelegramUserID,
		UpdateID: req.UpdateID, HistoryLimit: a.cfg.HistoryLimit, FactChars: a.factChars(req.Chat.ID, req.User.TelegramUserID),
		RecallLimit: a.cfg.Recall})
	if err != nil {
		return nil, err
	}
	return a.answer(ctx, turn, req)
}

// leaveOutForgotten takes out of a turn the rows that state a fact the
// user asked to forget (its tombstones come with the turn, in private
// chats): an answer that repeated it after the forgetting, before the
// background work marked it, must not bring it back to the model. The
// turn's own message stays: the user says it again now.
func leaveOutForgotten(turn *memory.Turn) {
	if len(turn.Tombstones) == 0 {
		return
	}
	turn.History = slices.DeleteFunc(turn.History, func(m memory.Message) bool {
		if m.ID == turn.UserMessageID {
			return false
		}
		text := m.Content
		for _, c := range m.ToolCalls {
			text += "\n" + c.Arguments
		}
		return memory.Stated(turn.Tombstones, text)
	})
	turn.Recalled = slices.DeleteFunc(turn.Recalled, func(s memory.Snippet) bool { return memory.Stated(turn.Tombstones, s.Text) })
}

// answer runs the model, and the tools it calls, until it answers, and
// stores every step. A turn whose answer is already stored is not run again.
func (a *Agent) answer(ctx context.Context, turn *memory.Turn, req Request) (*Reply, error) {
	if turn.Answer != nil {
		r := resumedReply(turn.Answer)
		r.Speak = turn.VoiceReplies
		return r, nil
	}
	info := TurnInfo{UserID: req.User.TelegramUserID, Chat: req.Chat, ConversationID: turn.ConversationID,
		UserMessageID: turn.UserMessageID, UpdateID: req.UpdateID, Forwarded: req.Forwarded}
	leaveOutForgotten(turn)
	if asked := askedBy(turn.Approvals, req.UpdateID); len(asked) > 0 {
		// An earlier attempt paused this turn for approval and was cut short,
		// perhaps before the buttons were sent.
		return &Reply{Outcome: Paused, Approvals: pending(asked), Outside: a.tools.readOutside(turn.History, turn.Recalled, &info)}, nil
	}
	t := &turnState{
		info:     info,
		recalled: turn.Recalled,
		system:   a.systemPrompt(turn, req.Chat.ID != req.User.TelegramUserID, pending(turn.Approvals)),
		sink:     withPartial(req.Sink),
		model:    a.ModelFor(turn.Model),
		lang:     req.User.LanguageCode,
		fresh:    req.Attachments,
	}
	r, err := a.loop(ctx, t, turn.History, nil)
	if r != nil {
		r.Speak = turn.VoiceReplies
		r.First = len(turn.History) == 1 // the user's row alone
	}
	return r, err
}

// turnState is what the steps of one turn share.
type turnState struct {
	info   TurnInfo
	system string // the system prompt: the mode's, with facts
	// recalled are the older rows the system prompt quotes (auto-recall).
	recalled []memory.Snippet
	sink     Sink // nil: not streamed
	model    string
	lang     string   // the user's language code, for the notes
	notes    []string // told the user after the answer
	// toolCalls counts the calls the model made this turn, against
	// maxCallsPerTurn.
	toolCalls int
	// fresh are the attachments of the turn's own message, downloaded;
	// images are the image parts of the window's rows, by row id.
	fresh  []Attachment
	images map[int64][]llm.Part
	tokens int // of the model calls so far
}

// loop calls the model, runs the tools it asks for and calls it again until
// it answers, or until a tool call must wait for approval.
func (a *Agent) loop(ctx context.Context, t *turnState, history []memory.Message, used []string) (*Reply, error) {
	t.images = a.images(ctx, t, history, t.fresh)
	for call := 1; ; call++ {
		// The last allowed call offers no tools, so the model must answer.
		offerTools := call < a.cfg.MaxModelCalls
		resp, llmCall, err := a.complete(ctx, t, history, offerTools)
		if err != nil && stopped(ctx) {
			return a.stop(ctx, t, llmCall, used)
		}
		if err != nil {
			a.recordFailure(ctx, &t.info, llmCall, err)
			return nil, err
		}
		t.tokens += llmCall.PromptTokens + llmCall.CompletionTokens
		meta := callMeta(llmCall)
		reasoningMeta(meta, resp)
		msg := resp.Message
		// An answer cut at its length may hold a call cut short: it is not run.
		if len(msg.ToolCalls) == 0 || !offerTools || resp.FinishReason == llm.FinishLength {
			if note := finishNote(t.lang, resp.FinishReason); note != "" {
				meta["finish_reason"] = resp.FinishReason
				t.notes = appendOnce(t.notes, note)
			}
			return a.finish(ctx, t, msg.Content, resp.Reasoning, llmCall, meta, used)
		}
		if t.sink != nil {
			t.sink.Discard() // whatever it said before calling tools is not the answer
		}
		t.toolsAnnounced(msg.ToolCalls)
		room := min(maxCallsPerAnswer, maxCallsPerTurn-t.toolCalls)
		outside := a.tools.readOutside(history, t.recalled, &t.info)
		rows, requests := a.runTools(ctx, &t.info, resp, meta, room, len(outside) > 0)
		t.toolCalls += len(rows[0].ToolCalls)
		for _, r := range rows[1:] {
			used = appendOnce(used, r.ToolName)
		}
		step := memory.Step{Messages: rows, LLMCalls: []memory.LLMCall{llmCall}, Events: toolEvents(&t.info, rows[1:])}
		if stopped(ctx) && len(requests) == 0 { // during the tools
			return a.stopAfterTools(ctx, t, step, used)
		}
		if len(requests) > 0 {
			approvals, err := a.store.PauseForApproval(ctx, t.info.ConversationID, step, requests)
			if err != nil {
				return nil, err
			}
			return &Reply{Outcome: Paused, Approvals: approvals, Outside: outside, ToolsUsed: used, Tokens: t.tokens}, nil
		}
		if _, err := a.store.SaveStep(ctx, t.info.ConversationID, step); err != nil {
			if stopped(ctx) {
				return a.stopAfterTools(ctx, t, step, used)
			}
			return nil, err
		}
		history = append(history, rows...)
	}
}

// finish stores the final answer, the call that produced it and, when
// tools were used, the system row that names them.
// The notes for the user (a cut answer, a model without tools) follow the
// answer's text in the reply, not in the stored row.
func (a *Agent) finish(ctx context.Context, t *turnState, text, reasoning string, call memory.LLMCall, meta map[string]any, used []string) (*Reply, error) {
	info := &t.info
	for key, list := range info.sent {
		meta[key] = list
	}
	rows := []memory.Message{{Role: memory.RoleAssistant, Content: text, UpdateID: info.UpdateID, Metadata: meta}}
	if len(used) > 0 {
		rows = append(rows, memory.Message{Role: memory.RoleSystem, Content: "Tools used: " + strings.Join(used, ", "), UpdateID: info.UpdateID})
	}
	ids, err := a.store.SaveStep(ctx, info.ConversationID, memory.Step{Messages: rows, LLMCalls: []memory.LLMCall{call}, FlushLater: true})
	if err != nil {
		return nil, err
	}
	if a.parts.TurnDone != nil {
		a.parts.TurnDone()
	}
	for _, note := range t.notes {
		text = request.JoinText(text, note)
	}
	return &Reply{Text: text, MessageID: ids[0], ToolsUsed: used, Reasoning: reasoning, Tokens: t.tokens}, nil
}

// resumedReply is the answer an earlier, interrupted attempt already stored.
func resumedReply(answer *memory.Message) *Reply {
	r := &Reply{Outcome: Resumed, Text: answer.Content, MessageID: answer.ID, TelegramMessageID: answer.TelegramMessageID}
	if answer.TelegramMessageID != 0 {
		r.Outcome = Delivered
	}
	return r
}

// callMeta is what an assistant row's metadata says of the call behind it.
func callMeta(c memory.LLMCall) map[string]any {
	return map[string]any{
		"model":             c.Model,
		"prompt_tokens":     c.PromptTokens,
		"completion_tokens": c.CompletionTokens,
		"latency_ms":        c.Latency.Milliseconds(),
	}
}

// recordFailure stores a model call that failed for good, with its
// llm_error event, and marks the turn's user row when the server refused
// it for what it holds (refusedFor). The turn fails anyway, so a storage
// error is only logged.
func (a *Agent) recordFailure(ctx context.Context, info *TurnInfo, call memory.LLMCall, err error) {
	if ctx.Err() != nil {
		return // shutting down: the turn is taken up again, nothing failed for good
	}
	ev := memory.Event{Type: memory.EventLLMError, UserID: info.UserID, ChatID: info.Chat.ID, UpdateID: info.UpdateID,
		Payload: map[string]any{"model": call.Model, "status": call.Status, "error": call.Error, "latency_ms": call.Latency.Milliseconds()}}
	step := memory.Step{LLMCalls: []memory.LLMCall{call}, Events: []memory.Event{ev}}
	if reason, ok := refusedFor(err); ok && info.UserMessageID != 0 {
		step.Refused = &memory.Refused{MessageID: info.UserMessageID, Reason: reason}
	}
	if _, err := a.store.SaveStep(ctx, info.ConversationID, step); err != nil {
		a.log.Warn("recording a failed model call failed", "update_id", info.UpdateID, "err", err)
	}
}

type noMetrics struct{}

func (noMetrics) LLMRequest(string, string, time.Duration) {}
func (noMetrics) ToolCall(string, error)                   {}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
