package web

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/membot/membot/memory"
)

// eventWebChange is the event every change made on the pages writes, with
// who made it (the admin's id, 0 on a Local interface) and what it was.
const eventWebChange = "web_change"

// routes is the table of every address the interface answers.
func (s *Server) routes() {
	s.mux.Handle("GET /static/", staticHandler())
	s.mux.HandleFunc("GET /signin", s.signInForm)
	s.mux.HandleFunc("POST /signin", s.signIn)

	s.operator("GET /{$}", s.overview)
	s.operator("POST /checks", s.runChecks)
	s.operator("GET /chats", s.chats)
	s.operator("GET /chats/{id}", s.chat)
	s.operator("GET /chats/{id}/search", s.chatSearch)
	s.operator("GET /messages/{id}", s.wholeMessage)
	s.operator("GET /memory", s.users)
	s.operator("GET /memory/{user}", s.user)
	s.operator("POST /memory/{user}/facts/{id}", s.editFact)
	s.operator("POST /memory/{user}/facts/{id}/forget", s.forgetFact)
	s.operator("POST /memory/{user}/forget", s.forgetAll)
	s.operator("GET /memory/{user}/export", s.exportUser)
	s.operator("GET /usage", s.usage)
	s.operator("GET /waits", s.waits)
	s.operator("POST /waits/{id}/cancel", s.cancelWait)
	s.operator("POST /approvals/{id}/cancel", s.cancelApproval)
	s.operator("GET /tools", s.tools)
	s.operator("GET /access", s.accessPage)
	s.operator("POST /access/requests/{id}/{verb}", s.decideRequest)
	s.operator("POST /access/grants", s.setGrant)
	s.operator("GET /settings", s.settings)
	s.operator("GET /sessions", s.sessions)
	s.operator("POST /sessions/{id}/end", s.endSession)
	s.operator("POST /signout", s.signOut)

	s.miniAppRoutes()
}

// dayStart is the start of t's day in the bot's zone.
func (s *Server) dayStart(t time.Time) time.Time {
	y, m, d := t.In(s.cfg.Location).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, s.cfg.Location)
}

func (s *Server) tools(w http.ResponseWriter, r *http.Request, v viewer) error {
	var servers []ToolServer
	if s.deps.Servers != nil {
		servers = s.deps.Servers()
	}
	return s.render(w, r, v, "tools", "Tool servers", map[string]any{"servers": servers})
}

// changed writes a change to the events table, with who made it. A
// failure to write it is logged: the change itself is made.
func (s *Server) changed(r *http.Request, v viewer, userID int64, action string, details map[string]any) {
	payload := map[string]any{"action": action, "by": v.UserID, "via": "web"}
	if v.SessionID != 0 {
		payload["session_id"] = v.SessionID
	}
	for k, val := range details {
		payload[k] = val
	}
	e := memory.Event{Type: eventWebChange, UserID: userID, Payload: payload}
	if err := s.deps.Events.AddEvents(r.Context(), e); err != nil {
		s.deps.Log.Error("web: record a change", "action", action, "err", err)
	}
}

// back answers a change: JSON for scripts, else back to the page.
func (s *Server) back(w http.ResponseWriter, r *http.Request, to string, data any) error {
	if wantsJSON(r) {
		return writeJSON(w, http.StatusOK, data)
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

// userAndID are the user and the row a path names (/memory/{user}/…/{id}).
func userAndID(r *http.Request) (userID, id int64, err error) {
	if userID, err = pathID(r, "user"); err == nil {
		id, err = pathID(r, "id")
	}
	return userID, id, err
}

// pathID is the positive number a path names, or errNotFound.
func pathID(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id == 0 {
		return 0, errNotFound
	}
	return id, nil
}

// uuidLike tells whether s can be a conversation's id.
func uuidLike(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case !strings.ContainsRune("0123456789abcdef", c):
			return false
		}
	}
	return true
}
