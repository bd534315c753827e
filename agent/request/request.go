// Package request builds what is sent to a chat model from a conversation's
// rows: the window that fits, in the shape strict servers accept, and the
// estimates of its size.
package request

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/memory"
)

// The request builder. Every request membot sends has the shape the
// strictest chat templates accept (Mistral and Gemma under vLLM, llama.cpp
// and LM Studio; DeepSeek's reasoner): one leading system message, then
// user and assistant turns that alternate, starting with user; an
// assistant message that calls tools is followed at once by one result per
// call, and after the results comes an assistant message, or the end.
// The rows stay in the database as they were stored; only the request is
// shaped:
//   - system rows (notes such as "Tools used: …") go into the system message;
//   - a user row that never got an answer is merged with the next user row,
//     unless the server refused it for good (memory.Message.Refused): that
//     one is left out, and the system message says so;
//   - an assistant row right after another is merged into it;
//   - a user row right after tool results (the turn failed after its tools
//     ran) gets a short assistant note before it;
//   - the window starts with a user message: an answer whose question fell
//     outside the window is left out, and tool calls get a placeholder
//     user message before them.

// TokensPerImage is what an image sent to a model counts: what OpenAI
// counts for a detailed one (85 to about 1,100 tokens up to 2048 px at
// detail "auto"), against DAILY_TOKEN_LIMIT like the paid calls of
// agent/cost.go.
const TokensPerImage = 1100

const (
	// unanswered is the assistant note between a tool result and the next
	// user message: that turn ended without an answer.
	unanswered = "(No answer was given: the turn ended after its tools ran.)"
	// earlierOmitted begins a window whose first row is not a user message.
	earlierOmitted = "(Earlier messages of this conversation are not shown.)"
	// refusedNote stands in the system message for a user row the model
	// server refused for good, with why.
	refusedNote = "An earlier message of the user could not be answered and is not shown: the model server refused it (%s)."
)

// Context is what a request is built from: the system prompt (mode,
// facts, pending approvals, and whatever else a turn adds to it) and the
// conversation's rows, oldest first, the turn's own rows included.
type Context struct {
	System string
	Rows   []memory.Message
	// Tokens bounds the estimated size of the request; 0: no bound.
	Tokens int
	// Images are the image parts shown with user rows, by row id: the
	// row's text comes first, then its images (OpenAI's vision format).
	Images map[int64][]llm.Part
	// DropReasoning leaves out the reasoning an assistant row with tool
	// calls kept, for a server that takes none back.
	DropReasoning bool
}

// Build returns the request's messages.
func (c Context) Build() []llm.Message {
	rows := ValidWindow(c.Rows)
	if c.Tokens > 0 {
		rows = fitTokens(rows, c.Tokens-EstimateTokens(c.System), c.imageTokens)
	}
	var notes []string
	msgs := []llm.Message{{Role: llm.RoleSystem}}
	for _, r := range rows {
		last := &msgs[len(msgs)-1]
		switch r.Role {
		case memory.RoleSystem:
			notes = append(notes, r.Content)
		case memory.RoleUser:
			if r.Refused != "" {
				notes = append(notes, fmt.Sprintf(refusedNote, r.Refused))
				continue
			}
			switch last.Role {
			case llm.RoleUser:
				mergeUser(last, c.userMessage(r))
				continue
			case llm.RoleTool:
				msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: unanswered})
			}
			msgs = append(msgs, c.userMessage(r))
		case memory.RoleAssistant:
			if last.Role == llm.RoleSystem {
				if len(r.ToolCalls) == 0 {
					continue // an answer whose question fell outside the window
				}
				msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: earlierOmitted})
				last = &msgs[len(msgs)-1]
			}
			m := assistantMessage(r, !c.DropReasoning)
			if last.Role == llm.RoleAssistant && len(last.ToolCalls) == 0 {
				m.Content = JoinText(last.Content, m.Content)
				*last = m
				continue
			}
			msgs = append(msgs, m)
		case memory.RoleTool:
			content := r.Content
			if content == "" {
				content = "(empty)" // servers want content on tool results
			}
			msgs = append(msgs, llm.Message{Role: llm.RoleTool, Content: content, ToolCallID: r.ToolCallID})
		}
	}
	msgs[0].Content = c.System
	if len(notes) > 0 {
		msgs[0].Content = JoinText(c.System, "Notes recorded in this conversation, oldest first:\n- "+strings.Join(notes, "\n- "))
	}
	return msgs
}

// userMessage is a user row as the model gets it: its text, and its
// images when it has any.
func (c Context) userMessage(r memory.Message) llm.Message {
	m := llm.Message{Role: llm.RoleUser, Content: r.Content}
	if images := c.Images[r.ID]; len(images) > 0 {
		m.Parts = append([]llm.Part{{Type: "text", Text: r.Content}}, images...)
		m.Content = ""
	}
	return m
}

// mergeUser adds a user message to the user message before it; when either has
// parts (images), the merged message is all their parts.
func mergeUser(last *llm.Message, next llm.Message) {
	if len(last.Parts) == 0 && len(next.Parts) == 0 {
		last.Content = JoinText(last.Content, next.Content)
		return
	}
	last.Parts = append(asParts(*last), asParts(next)...)
	last.Content = ""
}

func asParts(m llm.Message) []llm.Part {
	if len(m.Parts) > 0 {
		return m.Parts
	}
	return []llm.Part{{Type: "text", Text: m.Content}}
}

func assistantMessage(r memory.Message, sendReasoning bool) llm.Message {
	m := llm.Message{Role: llm.RoleAssistant, Content: r.Content}
	if m.Content == "" && len(r.ToolCalls) == 0 {
		m.Content = "(empty)" // some servers refuse an assistant message with neither
	}
	for _, c := range r.ToolCalls {
		call := llm.ToolCall{ID: c.ID, Type: "function", Function: llm.FunctionCall{Name: c.Name, Arguments: c.Arguments}}
		if len(c.Extra) > 0 {
			_ = json.Unmarshal(c.Extra, &call.Extra) // stored clean, as an object
		}
		m.ToolCalls = append(m.ToolCalls, call)
	}
	if sendReasoning && len(m.ToolCalls) > 0 {
		m.ReasoningContent = r.ReasoningBack
	}
	return m
}

func JoinText(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}

// fitTokens keeps the newest rows whose estimated size fits budget. The
// last user row and the rows after it (the turn at hand) are always kept;
// a cut never separates an assistant row from its tool results.
func fitTokens(rows []memory.Message, budget int, extra func(memory.Message) int) []memory.Message {
	size := func(r memory.Message) int { return rowTokens(r) + extra(r) }
	keepFrom := len(rows)
	for i := len(rows) - 1; i >= 0; i-- {
		keepFrom = i
		if rows[i].Role == memory.RoleUser {
			break
		}
	}
	used := 0
	for i := len(rows) - 1; i >= keepFrom; i-- {
		used += size(rows[i])
	}
	start := keepFrom
	for start > 0 && used+size(rows[start-1]) <= budget {
		start--
		used += size(rows[start])
	}
	for start < keepFrom && rows[start].Role == memory.RoleTool {
		start++ // its assistant row did not fit
	}
	return rows[start:]
}

// EstimateTokens is a deliberately high estimate of a text's tokens: a
// token per 3 bytes (English runs near 4 characters a token, Cyrillic near
// 2-3 characters of 2 bytes each), so that the window stays within the
// model's context for the languages membot's users write.
func EstimateTokens(s string) int {
	return len(s)/3 + 1
}

// rowTokens is a row's estimated tokens, with the message's own overhead.
func rowTokens(r memory.Message) int {
	n := 4 + EstimateTokens(r.Content)
	for _, c := range r.ToolCalls {
		n += 8 + EstimateTokens(c.Name) + EstimateTokens(c.Arguments)
	}
	return n
}

// imageTokens is the estimated size of the images shown with a row.
func (c Context) imageTokens(r memory.Message) int {
	return TokensPerImage * len(c.Images[r.ID])
}

// ImageOmitted stands for an image in a request to a model that takes none.
const ImageOmitted = "(An image was attached here; this model cannot see images.)"

// WithoutImages replaces the images of msgs by a note, for a model that
// refuses them; a message left with text parts only becomes plain text.
func WithoutImages(msgs []llm.Message) []llm.Message {
	for i, m := range msgs {
		if len(m.Parts) == 0 {
			continue
		}
		var text []string
		for _, p := range m.Parts {
			if p.ImageURL != nil {
				text = append(text, ImageOmitted)
			} else if p.Text != "" {
				text = append(text, p.Text)
			}
		}
		msgs[i].Parts, msgs[i].Content = nil, strings.Join(text, "\n\n")
	}
	return msgs
}

// EstimatePrompt estimates a request's prompt tokens from its size; an
// image counts as TokensPerImage, not as the length of its data URL.
func EstimatePrompt(req llm.Request) int {
	msgs := make([]llm.Message, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = m
		if len(m.Parts) == 0 {
			continue
		}
		msgs[i].Parts = nil
		for _, p := range m.Parts {
			if p.ImageURL == nil {
				msgs[i].Content = JoinText(msgs[i].Content, p.Text)
			}
		}
	}
	data, _ := json.Marshal(msgs)
	tools, _ := json.Marshal(req.Tools)
	return EstimateTokens(string(data)) + EstimateTokens(string(tools)) + CountImages(req)*TokensPerImage
}

// CountImages counts the images a request shows the model.
func CountImages(req llm.Request) int {
	n := 0
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			if p.ImageURL != nil {
				n++
			}
		}
	}
	return n
}

// EstimateAnswer estimates an answer's tokens, its thinking included.
func EstimateAnswer(r *llm.Response) int {
	n := EstimateTokens(r.Message.Content) + EstimateTokens(r.Reasoning)
	for _, c := range r.Message.ToolCalls {
		n += EstimateTokens(c.Function.Name) + EstimateTokens(c.Function.Arguments)
	}
	return n
}
