package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sashabaranov/go-openai"
)

// Sink shows an answer while the model writes it; the bot implements it.
// Its methods are called from the turn's goroutine, one at a time, and
// should return quickly.
type Sink interface {
	// Text adds the next piece of the answer.
	Text(delta string)
	// Discard drops the text given so far: the model went on to call tools,
	// so it was not the answer, or the call failed and is made again.
	Discard()
}

// errStreamCut is a stream that ended before the model said it was done.
var errStreamCut = errors.New("the answer stream ended before the answer was complete")

// errStreamIdle is a stream that sent nothing for too long.
var errStreamIdle = fmt.Errorf("the model sent nothing for too long: %w", context.DeadlineExceeded)

// stream makes one streamed model call: the answer's text goes to sink as it
// arrives, and the chunks are put together into the response a plain call
// would have given. idle bounds the wait for each chunk, not the whole
// answer, which may take long to write.
func (a *Agent) stream(ctx context.Context, req openai.ChatCompletionRequest, sink Sink, idle time.Duration) (openai.ChatCompletionResponse, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(idle, func() { cancel(errStreamIdle) })
	defer timer.Stop()

	req.Stream = true
	req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	stream, err := a.llm.CreateChatCompletionStream(ctx, req)
	if err != nil {
		return openai.ChatCompletionResponse{}, streamError(ctx, err)
	}
	defer stream.Close()
	var acc streamed
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return openai.ChatCompletionResponse{}, streamError(ctx, err)
		}
		timer.Reset(idle)
		acc.add(chunk, sink)
	}
	if acc.finish == "" {
		return openai.ChatCompletionResponse{}, errStreamCut
	}
	return acc.response(), nil
}

// streamError names the idle time-out as the cause when it was.
func streamError(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); errors.Is(cause, errStreamIdle) {
		return cause
	}
	return err
}

// streamed puts a streamed answer together.
type streamed struct {
	model   string
	content strings.Builder
	calls   []openai.ToolCall // by their index
	usage   openai.Usage
	finish  openai.FinishReason
}

func (s *streamed) add(chunk openai.ChatCompletionStreamResponse, sink Sink) {
	if chunk.Model != "" {
		s.model = chunk.Model
	}
	if chunk.Usage != nil { // the last chunk, when usage was asked for
		s.usage = *chunk.Usage
	}
	for _, choice := range chunk.Choices {
		if choice.Index != 0 {
			continue // only one choice is asked for
		}
		if text := choice.Delta.Content; text != "" {
			s.content.WriteString(text)
			sink.Text(text)
		}
		for _, fragment := range choice.Delta.ToolCalls {
			s.addToolCall(fragment)
		}
		if choice.FinishReason != "" {
			s.finish = choice.FinishReason
		}
	}
}

// addToolCall adds a fragment of a tool call: the first fragment of a call
// carries its id and name, the later ones more of its arguments, and the
// index says which call a fragment belongs to. A fragment without an index
// (some servers send each call whole) is a call of its own.
func (s *streamed) addToolCall(f openai.ToolCall) {
	i := len(s.calls)
	if f.Index != nil {
		i = *f.Index
	}
	for len(s.calls) <= i {
		s.calls = append(s.calls, openai.ToolCall{Type: openai.ToolTypeFunction})
	}
	call := &s.calls[i]
	if f.ID != "" {
		call.ID = f.ID
	}
	if f.Function.Name != "" {
		call.Function.Name = f.Function.Name
	}
	call.Function.Arguments += f.Function.Arguments
}

// response is the answer as a plain call would have returned it.
func (s *streamed) response() openai.ChatCompletionResponse {
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: s.content.String()}
	for i, call := range s.calls {
		if call.Function.Name == "" && call.ID == "" {
			continue // an index the server skipped
		}
		if call.ID == "" {
			call.ID = fmt.Sprintf("call_%d", i) // the result must name its call
		}
		msg.ToolCalls = append(msg.ToolCalls, call)
	}
	return openai.ChatCompletionResponse{Model: s.model, Usage: s.usage,
		Choices: []openai.ChatCompletionChoice{{Message: msg, FinishReason: s.finish}}}
}
