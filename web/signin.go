package web

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/membot/membot/memory/console"
)

// SessionStore keeps the sign-in links and the sessions they open: the
// sign-in, each request's session, the sessions page (memory/console.Store).
type SessionStore interface {
	AddSignInLink(ctx context.Context, token string, userID int64, ttl time.Duration) error
	SignIn(ctx context.Context, link string, st console.SessionStart) (console.Session, error)
	Session(ctx context.Context, token string) (console.Session, error)
	Sessions(ctx context.Context) ([]console.Session, error)
	EndSession(ctx context.Context, id int64) error
	DropOldSignIns(ctx context.Context) error
}

// signInForm shows the button that uses a /web link. The link itself
// changes nothing when fetched, so a link preview (Telegram fetches
// links to show them) cannot use it up.
func (s *Server) signInForm(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	if s.access != SignedIn {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if len(token) > 100 {
		token = ""
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := s.pages["signin"].Execute(w, view{Title: "Sign in", Data: token}); err != nil {
		s.deps.Log.Error("web: render sign-in", "err", err)
	}
}

// signIn uses a /web link once and opens a session for its admin.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	if s.access != SignedIn {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if !s.sameOrigin(r) {
		s.fail(w, r, http.StatusForbidden, "This sign-in did not come from this interface's page.")
		return
	}
	link := r.PostFormValue("token")
	if link == "" || len(link) > 100 {
		s.fail(w, r, http.StatusBadRequest, "This sign-in link is incomplete: send /web to the bot for a new one.")
		return
	}
	token := randomToken()
	ua := r.UserAgent()
	sess, err := s.deps.Sessions.SignIn(r.Context(), link, console.SessionStart{
		Token: token, CSRF: randomToken(), UserAgent: ua, TTL: s.cfg.SessionTTL,
	})
	if errors.Is(err, console.ErrNoSession) {
		s.fail(w, r, http.StatusForbidden, "This sign-in link was used already or has expired: send /web to the bot for a new one.")
		return
	}
	if err != nil {
		s.failed(w, r, err)
		return
	}
	if !s.isAdmin(r.Context(), sess.UserID) {
		if err := s.deps.Sessions.EndSession(r.Context(), sess.ID); err != nil {
			s.deps.Log.Warn("web: end a refused session", "err", err)
		}
		s.fail(w, r, http.StatusForbidden, "This link's admin is no longer an admin of the bot.")
		return
	}
	if err := s.deps.Sessions.DropOldSignIns(r.Context()); err != nil { // the tables stay small
		s.deps.Log.Warn("web: drop old sign-ins", "err", err)
	}
	s.setSessionCookie(w, token, int(s.cfg.SessionTTL.Seconds()))
	s.changed(r, viewer{UserID: sess.UserID, SessionID: sess.ID}, 0, "sign_in", nil)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// needSignIn answers a page asked without a session.
func (s *Server) needSignIn(w http.ResponseWriter, r *http.Request) {
	if wantsJSON(r) || r.Method != http.MethodGet {
		s.fail(w, r, http.StatusUnauthorized, "Sign in first: send /web to the bot for a link.")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusUnauthorized)
	_ = s.pages["signin"].Execute(w, view{Title: "Sign in"})
}

func (s *Server) sessions(w http.ResponseWriter, r *http.Request, v viewer) error {
	sessions, err := s.deps.Sessions.Sessions(r.Context())
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
	if err := s.deps.Sessions.EndSession(r.Context(), id); err != nil {
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
		if err := s.deps.Sessions.EndSession(r.Context(), v.SessionID); err != nil {
			return err
		}
		s.changed(r, v, 0, "sign_out", map[string]any{"session_id": v.SessionID})
	}
	s.setSessionCookie(w, "", -1)
	return s.back(w, r, "/signin", map[string]any{"signed_out": true})
}
