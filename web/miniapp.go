package web

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/console"
)

// userPage is a handler of the Mini App's API: u is the user Telegram
// signed the launch data for.
type userPage func(w http.ResponseWriter, r *http.Request, u TelegramUser) error

// miniAppRoutes are the Mini App and its API. The page needs no session:
// every call of its API carries Telegram's signed launch data, which
// names the user; nothing the page says of who it is counts.
func (s *Server) miniAppRoutes() {
	s.mux.HandleFunc("GET /app", s.miniApp)
	s.userAPI("GET /app/api/me", s.myMemory)
	s.userAPI("GET /app/api/search", s.mySearch)
	s.userAPI("GET /app/api/export", s.myExport)
	s.userAPI("POST /app/api/facts/{id}", s.myFactEdit)
	s.userAPI("POST /app/api/facts/{id}/forget", s.myFactForget)
	s.userAPI("POST /app/api/forget", s.myForgetAll)
	s.userAPI("POST /app/api/reminders/{id}/cancel", s.myReminderCancel)
}

func (s *Server) miniApp(w http.ResponseWriter, r *http.Request) {
	if !s.cfg.MiniApp() && s.access != Local {
		s.fail(w, r, http.StatusNotFound, "The Mini App needs WEB_URL, an HTTPS address.")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := s.pages["app"].Execute(w, view{Title: "My memory"}); err != nil {
		s.deps.Log.Error("web: render the Mini App", "err", err)
	}
}

// userAPI registers a call of the Mini App's API, for the user of the
// launch data in its Authorization header ("tma <initData>").
func (s *Server) userAPI(pattern string, p userPage) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "tma ")
		if !ok {
			_ = writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "open this page from the bot in Telegram"})
			return
		}
		maxAge := s.cfg.InitDataTTL
		if r.Method != http.MethodGet { // a change: launch data of the last hour only
			maxAge = min(maxAge, time.Hour)
		}
		u, err := CheckInitData(raw, s.deps.BotToken, maxAge, time.Now())
		if err != nil {
			s.deps.Log.Info("web: Mini App launch data refused", "err", err)
			_ = writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "Telegram's signature on this page does not hold or is too old: open it again from the bot"})
			return
		}
		if r.Method != http.MethodGet && tooLarge(r) {
			_ = writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": "this change is too large"})
			return
		}
		if s.deps.Who != nil {
			serves, _, err := s.deps.Who(r.Context(), u.ID)
			if err != nil {
				s.deps.Log.Error("web: whom the bot serves", "err", err)
				_ = writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "try again in a moment"})
				return
			}
			if !serves {
				_ = writeJSON(w, http.StatusForbidden, map[string]string{"error": "this bot does not serve you"})
				return
			}
		}
		if err := p(w, r, u); err != nil {
			if errors.Is(err, errNotFound) || errors.Is(err, memory.ErrNotFound) || errors.Is(err, console.ErrNotFound) {
				_ = writeJSON(w, http.StatusNotFound, map[string]string{"error": "not found"})
				return
			}
			s.deps.Log.Error("web: Mini App call failed", "path", r.URL.Path, "err", err)
			_ = writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "something went wrong"})
		}
	})
}

// myMemory is what the bot keeps of the user; a user the bot has never
// seen has nothing yet.
func (s *Server) myMemory(w http.ResponseWriter, r *http.Request, u TelegramUser) error {
	m, err := s.userMemory(r.Context(), u.ID)
	if errors.Is(err, console.ErrNotFound) {
		return writeJSON(w, http.StatusOK, userMemory{})
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, m)
}

// mySearch searches the user's own private conversations, never a group's.
func (s *Server) mySearch(w http.ResponseWriter, r *http.Request, u TelegramUser) error {
	q := queryOf(r)
	if q == "" {
		return writeJSON(w, http.StatusOK, []memory.Snippet{})
	}
	ids, err := s.deps.Memory.PrivateConversations(r.Context(), u.ID)
	if err != nil {
		return err
	}
	hits := []memory.Snippet{}
	for _, id := range ids {
		found, err := s.deps.Search.SearchMessages(r.Context(), memory.Search{ConversationID: id, Text: q, Limit: 10})
		if err != nil {
			return err
		}
		hits = append(hits, found...)
	}
	return writeJSON(w, http.StatusOK, hits)
}

// myExport sends every row of the user, as /export does: at most
// ExportsPerHour of the two together in any hour.
func (s *Server) myExport(w http.ResponseWriter, r *http.Request, u TelegramUser) error {
	again, err := s.deps.Events.ExportAgain(r.Context(), u.ID, s.deps.ExportsPerHour, time.Now())
	if err != nil {
		return err
	}
	if !again.IsZero() {
		return writeJSON(w, http.StatusTooManyRequests, map[string]string{"error": "you exported your data lately: try again in an hour"})
	}
	// Counted once it is made: a failed export costs the user nothing.
	return s.export(w, r, u.ID, func() error {
		return s.deps.Events.AddEvents(r.Context(), memory.Event{Type: memory.EventExportSent, UserID: u.ID,
			Payload: map[string]any{"via": "mini_app"}})
	})
}

func (s *Server) myFactEdit(w http.ResponseWriter, r *http.Request, u TelegramUser) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	text, problem := factText(r.PostFormValue("content"))
	if problem != "" {
		return writeJSON(w, http.StatusBadRequest, map[string]string{"error": problem})
	}
	f, err := s.deps.Facts.Remember(r.Context(), u.ID, id, text, 0)
	if err != nil {
		return err
	}
	s.changed(r, viewer{UserID: u.ID}, u.ID, "edit_fact", map[string]any{"fact_id": id, "new_fact_id": f.ID, "via": "mini_app"})
	return writeJSON(w, http.StatusOK, map[string]any{"fact": f})
}

func (s *Server) myFactForget(w http.ResponseWriter, r *http.Request, u TelegramUser) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	f, err := s.deps.Facts.ForgetFact(r.Context(), u.ID, id)
	if err != nil {
		return err
	}
	s.changed(r, viewer{UserID: u.ID}, u.ID, "forget_fact", map[string]any{"fact_id": f.ID, "via": "mini_app"})
	return writeJSON(w, http.StatusOK, map[string]any{"forgotten": f.ID})
}

func (s *Server) myForgetAll(w http.ResponseWriter, r *http.Request, u TelegramUser) error {
	n, err := s.deps.Facts.ForgetAllFacts(r.Context(), u.ID)
	if err != nil {
		return err
	}
	s.changed(r, viewer{UserID: u.ID}, u.ID, "forget_all_facts", map[string]any{"facts": n, "via": "mini_app"})
	return writeJSON(w, http.StatusOK, map[string]any{"forgotten": n})
}

func (s *Server) myReminderCancel(w http.ResponseWriter, r *http.Request, u TelegramUser) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	chatID, err := s.deps.Waits.CancelReminder(r.Context(), id, u.ID)
	if err != nil {
		return err
	}
	s.changed(r, viewer{UserID: u.ID}, u.ID, "cancel_reminder", map[string]any{"reminder_id": id, "chat_id": chatID, "via": "mini_app"})
	return writeJSON(w, http.StatusOK, map[string]any{"cancelled": id})
}
