package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/membot/membot/internal/stamp"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/console"
)

// MemoryStore is what the memory pages, the operator's and the Mini
// App's, read of each user: the users, their facts, summaries and
// reminders, their private conversations (memory/console.Store).
type MemoryStore interface {
	Users(ctx context.Context) ([]console.User, error)
	User(ctx context.Context, id int64) (console.User, error)
	UserFacts(ctx context.Context, userID int64) ([]console.Fact, error)
	UserSummaries(ctx context.Context, userID int64) ([]console.Summary, error)
	UserReminders(ctx context.Context, userID int64) ([]console.Waiting, error)
	PrivateConversations(ctx context.Context, userID int64) ([]string, error)
}

// Facts is what the memory pages change of the facts the way the bot
// does (memory.LongTerm): forgetting here is /forget's forgetting.
type Facts interface {
	Remember(ctx context.Context, userID, id int64, content string, sourceMessageID int64) (*memory.Fact, error)
	ForgetFact(ctx context.Context, userID, id int64) (*memory.Fact, error)
	ForgetAllFacts(ctx context.Context, userID int64) (int64, error)
}

func (s *Server) users(w http.ResponseWriter, r *http.Request, v viewer) error {
	users, err := s.deps.Memory.Users(r.Context())
	if err != nil {
		return err
	}
	return s.render(w, r, v, "users", "Memory", map[string]any{"users": users})
}

// userMemory is what the bot keeps of one user: the page of the operator
// and the Mini App's.
type userMemory struct {
	User      console.User      `json:"user"`
	Facts     []console.Fact    `json:"facts"`
	Summaries []console.Summary `json:"summaries"`
	Reminders []console.Waiting `json:"reminders"`
}

func (s *Server) userMemory(ctx context.Context, userID int64) (userMemory, error) {
	var m userMemory
	var err error
	if m.User, err = s.deps.Memory.User(ctx, userID); err != nil {
		return m, err
	}
	if m.Facts, err = s.deps.Memory.UserFacts(ctx, userID); err != nil {
		return m, err
	}
	for _, f := range m.Facts { // the user's words, without the time the model was shown
		if f.Source != nil && f.Source.Role == "user" {
			f.Source.Content = stamp.Strip(f.Source.Content)
		}
	}
	if m.Summaries, err = s.deps.Memory.UserSummaries(ctx, userID); err != nil {
		return m, err
	}
	m.Reminders, err = s.deps.Memory.UserReminders(ctx, userID)
	return m, err
}

func (s *Server) user(w http.ResponseWriter, r *http.Request, v viewer) error {
	userID, err := pathID(r, "user")
	if err != nil {
		return err
	}
	m, err := s.userMemory(r.Context(), userID)
	if err != nil {
		return err
	}
	return s.render(w, r, v, "user", "Memory", m)
}

// maxFactChars is the longest fact, as the remember tool allows.
const maxFactChars = 500

func (s *Server) editFact(w http.ResponseWriter, r *http.Request, v viewer) error {
	userID, id, err := userAndID(r)
	if err != nil {
		return err
	}
	text, problem := factText(r.PostFormValue("content"))
	if problem != "" {
		s.fail(w, r, http.StatusBadRequest, problem)
		return nil
	}
	f, err := s.deps.Facts.Remember(r.Context(), userID, id, text, 0)
	if err != nil {
		return err
	}
	s.changed(r, v, userID, "edit_fact", map[string]any{"fact_id": id, "new_fact_id": f.ID})
	return s.back(w, r, fmt.Sprintf("/memory/%d", userID), map[string]any{"fact": f})
}

// factText is a fact's new text, or what is wrong with it in words.
func factText(s string) (string, string) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", "A fact cannot be empty: to drop it, forget it."
	case len([]rune(s)) > maxFactChars:
		return "", fmt.Sprintf("A fact is at most %d characters; this one has %d.", maxFactChars, len([]rune(s)))
	}
	return s, ""
}

func (s *Server) forgetFact(w http.ResponseWriter, r *http.Request, v viewer) error {
	userID, id, err := userAndID(r)
	if err != nil {
		return err
	}
	f, err := s.deps.Facts.ForgetFact(r.Context(), userID, id)
	if errors.Is(err, memory.ErrNotFound) {
		return errNotFound
	}
	if err != nil {
		return err
	}
	s.changed(r, v, userID, "forget_fact", map[string]any{"fact_id": f.ID})
	return s.back(w, r, fmt.Sprintf("/memory/%d", userID), map[string]any{"forgotten": f.ID})
}

func (s *Server) forgetAll(w http.ResponseWriter, r *http.Request, v viewer) error {
	userID, err := pathID(r, "user")
	if err != nil {
		return err
	}
	n, err := s.deps.Facts.ForgetAllFacts(r.Context(), userID)
	if err != nil {
		return err
	}
	s.changed(r, v, userID, "forget_all_facts", map[string]any{"facts": n})
	return s.back(w, r, fmt.Sprintf("/memory/%d", userID), map[string]any{"forgotten": n})
}

func (s *Server) exportUser(w http.ResponseWriter, r *http.Request, v viewer) error {
	userID, err := pathID(r, "user")
	if err != nil {
		return err
	}
	return s.export(w, r, userID, nil)
}

// export sends every row of a user as one JSON file; made, it is noted
// with made (when set) before it is sent.
func (s *Server) export(w http.ResponseWriter, r *http.Request, userID int64, made func() error) error {
	if s.deps.Export == nil {
		return errNotFound
	}
	rows, err := s.deps.Export(r.Context(), userID)
	if err != nil {
		return err
	}
	if made != nil {
		if err := made(); err != nil {
			return err
		}
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="membot-user-%d.json"`, userID))
	return writeJSON(w, http.StatusOK, rows)
}
