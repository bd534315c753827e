package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/membot/membot/internal/stamp"
	"github.com/membot/membot/memory"
)

// cmdExport sends the whole current conversation as two documents: Markdown
// to read, and JSON with every column of every row, for machines.
func cmdExport(ctx context.Context, h *Handler, in *incoming) error {
	t, err := h.Memory.CurrentTranscript(ctx, in.msg.Chat.ID)
	if errors.Is(err, memory.ErrNotFound) || (err == nil && len(t.Messages) == 0) {
		return h.reply(ctx, in, tr(in.lang()).ExportEmpty)
	}
	if err != nil {
		return err
	}
	data, err := exportJSON(t)
	if err != nil {
		return err
	}
	name := "membot-conversation-" + t.Conversation.CreatedAt.In(h.Access.zone()).Format("2006-01-02-1504")
	caption := tr(in.lang()).ExportCaption(len(t.Messages))
	if _, err := h.Client.SendDocument(ctx, in.msg.Chat.ID, name+".md", exportMarkdown(t, in.lang(), h.Access.zone()), caption); err != nil {
		return err
	}
	_, err = h.Client.SendDocument(ctx, in.msg.Chat.ID, name+".json", data, "")
	return err
}

// exportMarkdown writes the conversation for people to read.
func exportMarkdown(t *memory.Transcript, lang string, loc *time.Location) []byte {
	var b strings.Builder
	at := func(at time.Time) string { return at.In(loc).Format("2006-01-02 15:04") }
	fmt.Fprintf(&b, "# membot conversation\n\n- id: %s\n- started: %s (%s)\n- mode: %s\n- messages: %d\n",
		t.Conversation.ID, at(t.Conversation.CreatedAt), loc, t.Conversation.Mode, len(t.Messages))
	for _, m := range t.Messages {
		switch {
		case m.Role == memory.RoleUser:
			fmt.Fprintf(&b, "\n## %s · %s\n\n%s\n", tr(lang).You, at(m.CreatedAt), stamp.Strip(m.Content))
		case m.Role == memory.RoleAssistant && len(m.ToolCalls) > 0:
			fmt.Fprintf(&b, "\n## %s · %s · tool calls\n\n", tr(lang).Bot, at(m.CreatedAt))
			if m.Content != "" {
				fmt.Fprintf(&b, "%s\n\n", m.Content)
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "`%s`\n%s\n", c.Name, fence(c.Arguments, "json"))
			}
		case m.Role == memory.RoleAssistant:
			fmt.Fprintf(&b, "\n## %s · %s\n\n%s\n", tr(lang).Bot, at(m.CreatedAt), m.Content)
		case m.Role == memory.RoleTool:
			fmt.Fprintf(&b, "\n### tool %s · %s\n\n%s\n", m.ToolName, at(m.CreatedAt), fence(m.Content, ""))
		default:
			fmt.Fprintf(&b, "\n### %s · %s\n\n%s\n", m.Role, at(m.CreatedAt), m.Content)
		}
	}
	return []byte(b.String())
}

// fence puts text in a code block whose fence none of its lines can close.
func fence(text, lang string) string {
	marker := "```"
	for strings.Contains(text, marker) {
		marker += "`"
	}
	return marker + lang + "\n" + text + "\n" + marker
}

// exportedMessage is a messages row with every column; NULL is null.
type exportedMessage struct {
	ID                int64             `json:"id"`
	ConversationID    string            `json:"conversation_id"`
	Role              memory.Role       `json:"role"`
	Content           string            `json:"content"`
	ToolCalls         []memory.ToolCall `json:"tool_calls"`
	ToolCallID        *string           `json:"tool_call_id"`
	ToolName          *string           `json:"tool_name"`
	TelegramMessageID *int64            `json:"telegram_message_id"`
	UpdateID          *int64            `json:"update_id"`
	Metadata          map[string]any    `json:"metadata"`
	CreatedAt         time.Time         `json:"created_at"`
}

// exportJSON writes the conversation and every column of its messages.
func exportJSON(t *memory.Transcript) ([]byte, error) {
	msgs := make([]exportedMessage, len(t.Messages))
	for i, m := range t.Messages {
		msgs[i] = exportedMessage{ID: m.ID, ConversationID: m.ConversationID, Role: m.Role, Content: m.Content,
			ToolCalls: m.ToolCalls, ToolCallID: nullable(m.ToolCallID), ToolName: nullable(m.ToolName),
			TelegramMessageID: nullable(m.TelegramMessageID), UpdateID: nullable(m.UpdateID), Metadata: m.Metadata, CreatedAt: m.CreatedAt}
	}
	data, err := json.MarshalIndent(map[string]any{
		"conversation": map[string]any{"id": t.Conversation.ID, "telegram_user_id": t.Conversation.TelegramUserID,
			"chat_id": t.Conversation.ChatID, "created_at": t.Conversation.CreatedAt, "mode": t.Conversation.Mode},
		"messages": msgs,
	}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("export: encode json: %w", err)
	}
	return data, nil
}

// nullable is nil for the zero value, which stands for NULL in memory.Message.
func nullable[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}
