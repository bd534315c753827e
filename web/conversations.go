package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/console"
)

// ConversationStore is what the conversations' pages read: the chats, a
// conversation's messages and the approvals its calls asked for, a
// message whole (memory/console.Store).
type ConversationStore interface {
	Chats(ctx context.Context) ([]console.Chat, error)
	ConversationMessages(ctx context.Context, conversationID string, limit int) ([]console.Message, error)
	ConversationApprovals(ctx context.Context, conversationID string) ([]console.Approval, error)
	MessageText(ctx context.Context, id int64) (string, error)
}

// Search finds messages of a conversation, as the bot's search_history
// does: a conversation's page and the Mini App (memory.Index).
type Search interface {
	SearchMessages(ctx context.Context, q memory.Search) ([]memory.Snippet, error)
}

func (s *Server) chats(w http.ResponseWriter, r *http.Request, v viewer) error {
	chats, err := s.deps.Conversations.Chats(r.Context())
	if err != nil {
		return err
	}
	return s.render(w, r, v, "chats", "Conversations", map[string]any{"chats": chats})
}

// messagesShown bounds a conversation's page.
const messagesShown = 200

// maxQuery bounds a search's text.
const maxQuery = 500

// queryOf is a request's search text (q): valid UTF-8 (PostgreSQL refuses
// the rest), trimmed, and cut to maxQuery bytes on a character's edge.
func queryOf(r *http.Request) string {
	q := strings.ToValidUTF8(r.URL.Query().Get("q"), "")
	if len(q) > maxQuery {
		q = strings.ToValidUTF8(q[:maxQuery], "")
	}
	return strings.TrimSpace(q)
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, v viewer) error {
	ctx := r.Context()
	id := r.PathValue("id")
	if !uuidLike(id) {
		return errNotFound
	}
	data := map[string]any{"id": id}
	q, hits, err := s.search(r, id)
	if err != nil {
		return err
	}
	data["q"], data["hits"] = q, hits
	messages, err := s.deps.Conversations.ConversationMessages(ctx, id, messagesShown)
	if err != nil {
		return err
	}
	approvals, err := s.deps.Conversations.ConversationApprovals(ctx, id)
	if err != nil {
		return err
	}
	data["messages"], data["approvals"] = s.chatRows(messages, approvals)
	return s.render(w, r, v, "chat", "Conversation", data)
}

// chatRow is a message as the conversation's page shows it: a user row's
// origin in words, each tool call with the approval it asked for.
type chatRow struct {
	console.Message
	Origin string    `json:"origin,omitempty"`
	Calls  []callRow `json:"calls,omitempty"`
}

// callRow is a tool call and, when it asked a person first, its approval.
type callRow struct {
	console.Call
	Approval *console.Approval `json:"approval,omitempty"`
}

// chatRows puts each approval beside its call; the approvals of calls
// not shown (older than the page's rows) are returned apart.
func (s *Server) chatRows(messages []console.Message, approvals []console.Approval) ([]chatRow, []console.Approval) {
	type key struct {
		message int64
		call    string
	}
	byCall := map[key]*console.Approval{}
	for i, a := range approvals {
		byCall[key{a.AssistantMessageID, a.RequestID}] = &approvals[i]
	}
	shown := map[int64]bool{}
	rows := make([]chatRow, 0, len(messages))
	for _, m := range messages {
		row := chatRow{Message: m}
		if m.From != nil && s.deps.Origin != nil {
			row.Origin = s.deps.Origin(*m.From)
		}
		for _, c := range m.Calls {
			a := byCall[key{m.ID, c.ID}]
			if a != nil {
				shown[a.ID] = true
			}
			row.Calls = append(row.Calls, callRow{Call: c, Approval: a})
		}
		rows = append(rows, row)
	}
	var others []console.Approval
	for _, a := range approvals {
		if !shown[a.ID] {
			others = append(others, a)
		}
	}
	return rows, others
}

// search runs the bot's own search over a conversation for the request's
// q (cut to maxQuery), nothing for none.
func (s *Server) search(r *http.Request, conversationID string) (string, []memory.Snippet, error) {
	q := queryOf(r)
	if q == "" {
		return "", nil, nil
	}
	hits, err := s.deps.Search.SearchMessages(r.Context(), memory.Search{ConversationID: conversationID, Text: q, Limit: 10})
	return q, hits, err
}

// chatSearch is a conversation's search results alone: the page's search
// box fetches them as the operator types (htmx), and scripts as JSON.
func (s *Server) chatSearch(w http.ResponseWriter, r *http.Request, v viewer) error {
	id := r.PathValue("id")
	if !uuidLike(id) {
		return errNotFound
	}
	q, hits, err := s.search(r, id)
	if err != nil {
		return err
	}
	data := map[string]any{"q": q, "hits": hits}
	if wantsJSON(r) {
		return writeJSON(w, http.StatusOK, data)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	return s.pages["_hits"].Execute(w, data)
}

// wholeMessage is one message's whole text, as plain text.
func (s *Server) wholeMessage(w http.ResponseWriter, r *http.Request, v viewer) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return errNotFound
	}
	text, err := s.deps.Conversations.MessageText(r.Context(), id)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, err = w.Write([]byte(text))
	return err
}
