package agent

import (
	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/memory"
)

// validWindow drops what would make the history invalid for the OpenAI API:
// tool results whose assistant row fell outside the window (or never got
// stored), and assistant tool-call rows some of whose results are missing (a
// turn cut short by a crash). Everything else is kept, in order.
func validWindow(rows []memory.Message) []memory.Message {
	out := make([]memory.Message, 0, len(rows))
	for i := 0; i < len(rows); i++ {
		row := rows[i]
		switch {
		case row.Role == memory.RoleTool:
			continue // not right after its assistant row: an orphan
		case row.Role == memory.RoleAssistant && len(row.ToolCalls) > 0:
			j := i + 1
			answered := map[string]bool{}
			for j < len(rows) && rows[j].Role == memory.RoleTool {
				answered[rows[j].ToolCallID] = true
				j++
			}
			complete := true
			for _, c := range row.ToolCalls {
				complete = complete && answered[c.ID]
			}
			if complete {
				out = append(out, row)
				for _, result := range rows[i+1 : j] {
					if asked(row, result.ToolCallID) {
						out = append(out, result)
					}
				}
			}
			i = j - 1
		default:
			out = append(out, row)
		}
	}
	return out
}

// toChatMessages converts rows to the API's messages.
func toChatMessages(rows []memory.Message) []openai.ChatCompletionMessage {
	msgs := make([]openai.ChatCompletionMessage, 0, len(rows))
	for _, r := range rows {
		m := openai.ChatCompletionMessage{Role: string(r.Role), Content: r.Content, ToolCallID: r.ToolCallID}
		for _, c := range r.ToolCalls {
			m.ToolCalls = append(m.ToolCalls, openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: c.Name, Arguments: c.Arguments}})
		}
		if r.Role == memory.RoleTool && m.Content == "" {
			m.Content = "(empty)" // the API wants content on tool results
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// asked reports whether the assistant row asked for the tool call id.
func asked(row memory.Message, id string) bool {
	for _, c := range row.ToolCalls {
		if c.ID == id {
			return true
		}
	}
	return false
}
