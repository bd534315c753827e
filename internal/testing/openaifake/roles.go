package openaifake

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/sashabaranov/go-openai"
)

// CheckRoles checks a request's messages against what the strictest chat
// templates accept (Mistral and Gemma under vLLM, llama.cpp and LM Studio,
// DeepSeek's reasoner): exactly one system message, first; then a user
// message; user and assistant turns alternate; an assistant message with
// tool calls is followed at once by one tool result per call, in order, and
// each result answers a call of it; after the results comes an assistant
// message or the end; the request ends with a user message or tool results.
func CheckRoles(msgs []openai.ChatCompletionMessage) error {
	if len(msgs) == 0 || msgs[0].Role != openai.ChatMessageRoleSystem {
		return fmt.Errorf("the first message must be the system message")
	}
	if len(msgs) < 2 || msgs[1].Role != openai.ChatMessageRoleUser {
		return fmt.Errorf("after the system message must come a user message")
	}
	for i := 1; i < len(msgs); i++ {
		m, prev := msgs[i], msgs[i-1]
		switch m.Role {
		case openai.ChatMessageRoleSystem:
			return fmt.Errorf("message %d: a system message after the first", i)
		case openai.ChatMessageRoleUser:
			if prev.Role == openai.ChatMessageRoleUser {
				return fmt.Errorf("message %d: two user messages in a row", i)
			}
			if prev.Role == openai.ChatMessageRoleTool {
				return fmt.Errorf("message %d: a user message right after tool results", i)
			}
			if prev.Role == openai.ChatMessageRoleAssistant && len(prev.ToolCalls) > 0 {
				return fmt.Errorf("message %d: tool calls without their results", i-1)
			}
		case openai.ChatMessageRoleAssistant:
			if prev.Role == openai.ChatMessageRoleAssistant {
				return fmt.Errorf("message %d: two assistant messages in a row", i)
			}
			if prev.Role == openai.ChatMessageRoleSystem {
				return fmt.Errorf("message %d: an assistant message right after the system message", i)
			}
		case openai.ChatMessageRoleTool:
			j := i - 1
			for j > 0 && msgs[j].Role == openai.ChatMessageRoleTool {
				j--
			}
			asker := msgs[j]
			k := i - j - 1 // which result of the asker this is
			if asker.Role != openai.ChatMessageRoleAssistant || k >= len(asker.ToolCalls) {
				return fmt.Errorf("message %d: a tool result that answers no call before it", i)
			}
			if asker.ToolCalls[k].ID != m.ToolCallID {
				return fmt.Errorf("message %d: the result of %q where %q's was due", i, m.ToolCallID, asker.ToolCalls[k].ID)
			}
		default:
			return fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
		if prev.Role == openai.ChatMessageRoleAssistant && len(prev.ToolCalls) > 0 && m.Role != openai.ChatMessageRoleTool {
			return fmt.Errorf("message %d: tool calls without their results", i-1)
		}
	}
	last := msgs[len(msgs)-1]
	if last.Role == openai.ChatMessageRoleAssistant && len(last.ToolCalls) > 0 {
		return fmt.Errorf("the request ends with tool calls without their results")
	}
	if last.Role == openai.ChatMessageRoleTool {
		j := len(msgs) - 1
		for msgs[j].Role == openai.ChatMessageRoleTool {
			j--
		}
		if n := len(msgs) - 1 - j; n != len(msgs[j].ToolCalls) {
			return fmt.Errorf("the request ends with %d of %d tool results", n, len(msgs[j].ToolCalls))
		}
	}
	if last.Role != openai.ChatMessageRoleUser && last.Role != openai.ChatMessageRoleTool {
		return fmt.Errorf("the request ends with a %s message", last.Role)
	}
	return nil
}

// The requests of every fake in this process that broke the invariant
// (unless the fake was told to expect them), for RoleViolations.
var suite struct {
	mu         sync.Mutex
	violations []string
}

func recordViolation(desc string) {
	suite.mu.Lock()
	defer suite.mu.Unlock()
	if len(suite.violations) < 20 {
		suite.violations = append(suite.violations, desc)
	}
}

// RoleViolations returns an error naming the requests that any fake of this
// test binary received and that broke CheckRoles; a package's TestMain
// calls it after its tests, so that the invariant holds over every request.
func RoleViolations() error {
	suite.mu.Lock()
	defer suite.mu.Unlock()
	if len(suite.violations) == 0 {
		return nil
	}
	return fmt.Errorf("requests with roles strict servers refuse:\n%s", strings.Join(suite.violations, "\n"))
}

// Main runs a test binary's tests and fails it when any request a fake
// received broke the role invariant: a package's TestMain is
// os.Exit(openaifake.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if err := RoleViolations(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	return code
}

// describeRoles lists a request's roles, for messages.
func describeRoles(msgs []openai.ChatCompletionMessage) string {
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = m.Role
		if len(m.ToolCalls) > 0 {
			roles[i] += fmt.Sprintf("(%d calls)", len(m.ToolCalls))
		}
	}
	return strings.Join(roles, ", ")
}
