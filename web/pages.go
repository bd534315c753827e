package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/membot/membot/internal/stamp"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/console"
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

func (s *Server) overview(w http.ResponseWriter, r *http.Request, v viewer) error {
	ctx := r.Context()
	now := time.Now()
	counts, err := s.deps.Console.Overview(ctx, s.dayStart(now))
	if err != nil {
		return err
	}
	failures, err := s.deps.Console.RecentFailures(ctx, now.Add(-24*time.Hour))
	if err != nil {
		return err
	}
	s.checks.mu.Lock()
	checks, checkedAt, checking := s.checks.lines, s.checks.at, s.checks.active
	s.checks.mu.Unlock()
	return s.render(w, r, v, "overview", "Overview", map[string]any{
		"counts": counts, "failures": failures, "checks": checks, "checked_at": checkedAt,
		"checking": checking, "can_check": s.deps.Checks != nil,
	})
}

// runChecks runs membot doctor's checks, one run at a time: each makes
// small real calls (a picture among them, when pictures are on), so they
// run when an operator asks, not at every look at the overview.
func (s *Server) runChecks(w http.ResponseWriter, r *http.Request, v viewer) error {
	if s.deps.Checks == nil {
		return errNotFound
	}
	s.checks.mu.Lock()
	if s.checks.active {
		s.checks.mu.Unlock()
		return s.back(w, r, "/", map[string]any{"running": true})
	}
	s.checks.active = true
	s.checks.mu.Unlock()
	// In the background: the checks may take longer than a response may.
	go func() {
		var lines []Check
		defer func() {
			if p := recover(); p != nil {
				s.deps.Log.Error("web: the checks panicked", "panic", p)
				lines = []Check{{Name: "checks", Mark: "✗", Detail: "the checks stopped with an error; the log says which"}}
			}
			s.checks.mu.Lock()
			s.checks.lines, s.checks.at, s.checks.active = lines, time.Now(), false
			s.checks.mu.Unlock()
		}()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 2*time.Minute)
		defer cancel()
		lines = s.deps.Checks(ctx)
	}()
	s.changed(r, v, 0, "run_checks", nil)
	return s.back(w, r, "/", map[string]any{"running": true})
}

func (s *Server) chats(w http.ResponseWriter, r *http.Request, v viewer) error {
	chats, err := s.deps.Console.Chats(r.Context())
	if err != nil {
		return err
	}
	return s.render(w, r, v, "chats", "Conversations", map[string]any{"chats": chats})
}

// messagesShown bounds a conversation's page.
const messagesShown = 200

// maxQuery bounds a search's text.
const maxQuery = 500

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
	messages, err := s.deps.Console.ConversationMessages(ctx, id, messagesShown)
	if err != nil {
		return err
	}
	approvals, err := s.deps.Console.ConversationApprovals(ctx, id)
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
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if q == "" {
		return "", nil, nil
	}
	if len(q) > maxQuery {
		q = strings.ToValidUTF8(q[:maxQuery], "")
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
	text, err := s.deps.Console.MessageText(r.Context(), id)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, err = w.Write([]byte(text))
	return err
}

func (s *Server) users(w http.ResponseWriter, r *http.Request, v viewer) error {
	users, err := s.deps.Console.Users(r.Context())
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
	if m.User, err = s.deps.Console.User(ctx, userID); err != nil {
		return m, err
	}
	if m.Facts, err = s.deps.Console.UserFacts(ctx, userID); err != nil {
		return m, err
	}
	for _, f := range m.Facts { // the user's words, without the time the model was shown
		if f.Source != nil && f.Source.Role == "user" {
			f.Source.Content = stamp.Strip(f.Source.Content)
		}
	}
	if m.Summaries, err = s.deps.Console.UserSummaries(ctx, userID); err != nil {
		return m, err
	}
	m.Reminders, err = s.deps.Console.UserReminders(ctx, userID)
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

// usageDays is how far back the usage page looks.
const usageDays = 30

func (s *Server) usage(w http.ResponseWriter, r *http.Request, v viewer) error {
	ctx := r.Context()
	since := s.dayStart(time.Now()).AddDate(0, 0, -(usageDays - 1))
	used, err := s.deps.Console.UsageByDay(ctx, since, s.cfg.Location.String())
	if err != nil {
		return err
	}
	days := everyDay(since, usageDays, used)
	users, err := s.deps.Console.UsageByUser(ctx, since)
	if err != nil {
		return err
	}
	models, err := s.deps.Console.UsageByModel(ctx, since)
	if err != nil {
		return err
	}
	today, err := s.deps.Console.UsageByUser(ctx, s.dayStart(time.Now()))
	if err != nil {
		return err
	}
	return s.render(w, r, v, "usage", "Usage", map[string]any{
		"since": since, "days": days, "users": users, "models": models, "today": today,
		"daily_token_limit": s.cfg.DailyTokenLimit,
	})
}

// everyDay is the n days from since, each with its usage (none: zero),
// so the chart's time axis is the period's and its table has every day.
func everyDay(since time.Time, n int, used []console.DayUsage) []console.DayUsage {
	byDay := map[string]console.DayUsage{}
	for _, d := range used {
		byDay[d.Day.Format(time.DateOnly)] = d
	}
	out := make([]console.DayUsage, 0, n)
	for i := range n {
		day := since.AddDate(0, 0, i)
		d, ok := byDay[day.Format(time.DateOnly)]
		if !ok {
			d = console.DayUsage{}
		}
		d.Day = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
		out = append(out, d)
	}
	return out
}

func (s *Server) waits(w http.ResponseWriter, r *http.Request, v viewer) error {
	ctx := r.Context()
	approvals, err := s.deps.Console.PendingApprovals(ctx)
	if err != nil {
		return err
	}
	reminders, err := s.deps.Console.WaitingReminders(ctx)
	if err != nil {
		return err
	}
	return s.render(w, r, v, "waits", "Waiting", map[string]any{"approvals": approvals, "reminders": reminders})
}

func (s *Server) cancelWait(w http.ResponseWriter, r *http.Request, v viewer) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	chatID, err := s.deps.Console.CancelReminder(r.Context(), id, 0)
	if err != nil {
		return err
	}
	s.changed(r, v, 0, "cancel_reminder", map[string]any{"reminder_id": id, "chat_id": chatID})
	return s.back(w, r, "/waits", map[string]any{"cancelled": id})
}

func (s *Server) cancelApproval(w http.ResponseWriter, r *http.Request, v viewer) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	chatID, err := s.deps.Console.CancelApproval(r.Context(), id)
	if err != nil {
		return err
	}
	s.changed(r, v, 0, "cancel_approval", map[string]any{"approval_id": id, "chat_id": chatID})
	return s.back(w, r, "/waits", map[string]any{"cancelled": id})
}

func (s *Server) tools(w http.ResponseWriter, r *http.Request, v viewer) error {
	var servers []ToolServer
	if s.deps.Servers != nil {
		servers = s.deps.Servers()
	}
	return s.render(w, r, v, "tools", "Tool servers", map[string]any{"servers": servers})
}

func (s *Server) sessions(w http.ResponseWriter, r *http.Request, v viewer) error {
	sessions, err := s.deps.Console.Sessions(r.Context())
	if err != nil {
		return err
	}
	return s.render(w, r, v, "sessions", "Sessions", map[string]any{
		"sessions": sessions, "current": v.SessionID, "signed_in": s.access == SignedIn,
	})
}

func (s *Server) endSession(w http.ResponseWriter, r *http.Request, v viewer) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if err := s.deps.Console.EndSession(r.Context(), id); err != nil {
		return err
	}
	s.changed(r, v, 0, "end_session", map[string]any{"session_id": id})
	if id == v.SessionID {
		s.setSessionCookie(w, "", -1)
		return s.back(w, r, "/signin", map[string]any{"ended": id})
	}
	return s.back(w, r, "/sessions", map[string]any{"ended": id})
}

func (s *Server) signOut(w http.ResponseWriter, r *http.Request, v viewer) error {
	if v.SessionID != 0 {
		if err := s.deps.Console.EndSession(r.Context(), v.SessionID); err != nil {
			return err
		}
		s.changed(r, v, 0, "sign_out", map[string]any{"session_id": v.SessionID})
	}
	s.setSessionCookie(w, "", -1)
	return s.back(w, r, "/signin", map[string]any{"signed_out": true})
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
