package agent

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/memory"
)

// ErrStopped is the cause the bot cancels a turn's context with when the
// user stops the answer (Telegram's Stop button on a draft, /stop). The
// model call ends at once (its HTTP request is closed with the context);
// what the model had written is stored as the answer, marked
// metadata.stopped = true, and returned as a Reply whose Outcome is Stopped.
var ErrStopped = errors.New("stopped by the user")

// stopped reports whether the user stopped the turn.
func stopped(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), ErrStopped)
}

// ToolSink is a Sink that is also told which tools a round runs, so that
// it can say so while the user waits ("searching your history…").
type ToolSink interface {
	Tools(names []string)
}

// partialSink passes the answer on to the bot's sink and keeps the text of
// the current round: what a stopped turn stores.
type partialSink struct {
	Sink
	mu   sync.Mutex
	text strings.Builder
}

func (p *partialSink) Text(delta string) {
	p.mu.Lock()
	p.text.WriteString(delta)
	p.mu.Unlock()
	p.Sink.Text(delta)
}

func (p *partialSink) Discard() {
	p.mu.Lock()
	p.text.Reset()
	p.mu.Unlock()
	p.Sink.Discard()
}

func (p *partialSink) Reasoning(delta string) {
	if rs, ok := p.Sink.(ReasoningSink); ok {
		rs.Reasoning(delta)
	}
}

func (p *partialSink) Tools(names []string) {
	if ts, ok := p.Sink.(ToolSink); ok {
		ts.Tools(names)
	}
}

func (p *partialSink) partial() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.text.String()
}

// withPartial wraps a turn's sink so that a stop finds the text so far.
func withPartial(sink Sink) Sink {
	if sink == nil {
		return nil
	}
	return &partialSink{Sink: sink}
}

// partialText is what the model wrote in the round a stop cut short ("" when
// not streamed: a model call that is not streamed gives nothing back early).
func (t *turnState) partialText() string {
	if p, ok := t.sink.(*partialSink); ok {
		return p.partial()
	}
	return ""
}

// toolsAnnounced tells the sink the tools of a round about to run.
func (t *turnState) toolsAnnounced(calls []llm.ToolCall) {
	ts, ok := t.sink.(ToolSink)
	if !ok || len(calls) == 0 {
		return
	}
	var names []string
	for _, c := range calls {
		names = appendOnce(names, c.Function.Name)
	}
	ts.Tools(names)
}

// stop stores what a stopped turn produced as its answer, marked stopped,
// and the call that was cut short. It outlives the cancelled turn's context,
// which only stopped the model.
func (a *Agent) stop(ctx context.Context, t *turnState, call memory.LLMCall, used []string) (*Reply, error) {
	ctx = context.WithoutCancel(ctx)
	call.Status, call.Error = "stopped", ""
	meta := callMeta(call)
	meta["stopped"] = true
	t.notes = nil // the answer shown is exactly what is stored
	r, err := a.finish(ctx, t, t.partialText(), "", call, meta, used)
	if err != nil {
		return nil, err
	}
	r.Outcome = Stopped
	return r, nil
}

// stopAfterTools ends a turn stopped while its tools ran: their round is
// kept as it came out (what ran, ran), and the answer is empty, marked
// stopped.
func (a *Agent) stopAfterTools(ctx context.Context, t *turnState, step memory.Step, used []string) (*Reply, error) {
	ctx = context.WithoutCancel(ctx)
	if _, err := a.store.SaveStep(ctx, t.info.ConversationID, step); err != nil {
		return nil, err
	}
	rows := []memory.Message{{Role: memory.RoleAssistant, UpdateID: t.info.UpdateID, Metadata: map[string]any{"stopped": true}}}
	if len(used) > 0 {
		rows = append(rows, memory.Message{Role: memory.RoleSystem, Content: "Tools used: " + strings.Join(used, ", "), UpdateID: t.info.UpdateID})
	}
	ids, err := a.store.SaveStep(ctx, t.info.ConversationID, memory.Step{Messages: rows, FlushLater: true})
	if err != nil {
		return nil, err
	}
	return &Reply{MessageID: ids[0], ToolsUsed: used, Outcome: Stopped}, nil
}
