package web

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/membot/membot/memory/console"
)

// sessionCookie holds a signed-in admin's session token. The __Host-
// prefix makes a browser keep it only as set here: Secure, for this host
// alone, for every path.
const sessionCookie = "__Host-membot_session"

// proxyHeaders are what a reverse proxy or tunnel adds to what it passes
// on: a loopback interface without a login refuses them, since a proxy
// that rewrites Host would put it on the Internet.
var proxyHeaders = []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-Ip",
	"Via", "Cf-Connecting-Ip", "True-Client-Ip", "Tailscale-User-Login", "X-Original-Forwarded-For"}

// maxForm bounds a change's request body: forms of a few fields.
const maxForm = 64 << 10

// viewer is who a page is shown to.
type viewer struct {
	// UserID is the admin signed in; 0 on a Local interface.
	UserID int64
	// SessionID is the session the page was asked in; 0 on a Local one.
	SessionID int64
	// CSRF is the token every change must carry.
	CSRF string
}

// page is a handler of the operator's pages.
type page func(w http.ResponseWriter, r *http.Request, v viewer) error

// operatorCSP keeps a page to its own scripts, styles and data.
const operatorCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// miniAppCSP lets Telegram's web clients show the Mini App in a frame.
const miniAppCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors https://web.telegram.org https://*.telegram.org"

// secured sets every response's security headers, bounds request bodies,
// and on a Local interface answers only requests addressed to the
// loopback host (a page of another site cannot reach it by DNS rebinding).
func (s *Server) secured(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if strings.HasPrefix(r.URL.Path, "/app") {
			h.Set("Content-Security-Policy", miniAppCSP)
		} else {
			h.Set("Content-Security-Policy", operatorCSP)
			h.Set("X-Frame-Options", "DENY")
		}
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin") // no-referrer would make a form's Origin "null"
		h.Set("Cache-Control", "no-store")
		if strings.HasPrefix(s.cfg.URL, "https://") {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		if refused := s.refusedHost(r); refused != "" {
			s.refusals.Do(func() { s.deps.Log.Warn("web: " + refused) })
			http.Error(w, refused, http.StatusMisdirectedRequest)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		next.ServeHTTP(w, r)
	})
}

// refusedHost says why a request is not for this interface, "" when it
// is. A loopback interface answers requests to a loopback name, straight
// from the browser: not through a proxy (DNS rebinding and a Host-
// rewriting proxy would both reach it otherwise). One with WEB_URL
// answers requests to WEB_URL's host, or to a loopback name.
func (s *Server) refusedHost(r *http.Request) string {
	if s.access == Local {
		for _, name := range proxyHeaders {
			if r.Header.Get(name) != "" {
				return "this interface has no login and answers on its loopback address only, not through a proxy (" +
					name + "); set WEB_URL to serve it through one, with sign-in"
			}
		}
		if !loopback(r.Host) {
			return "this interface answers on its loopback address only"
		}
		return ""
	}
	if u, err := url.Parse(s.cfg.URL); err == nil && (strings.EqualFold(r.Host, u.Host) || loopback(r.Host)) {
		return ""
	}
	return "this interface answers at WEB_URL only"
}

// operator registers an operator's page: shown to whoever may (a Local
// interface's visitor, else a signed-in admin), its changes only with the
// page's CSRF token and from the interface's own origin.
func (s *Server) operator(pattern string, p page) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		v, ok := s.viewer(r)
		if !ok {
			s.needSignIn(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if tooLarge(r) {
				s.fail(w, r, http.StatusRequestEntityTooLarge, "This change is too large.")
				return
			}
			if !s.sameOrigin(r) || !validCSRF(r, v.CSRF) {
				s.fail(w, r, http.StatusForbidden, "This change was refused: the page it came from is not this interface's, or is too old. Reload the page and try again.")
				return
			}
		}
		if err := p(w, r, v); err != nil {
			s.failed(w, r, err)
		}
	})
}

// viewer is who asks: anyone on a Local interface, else the admin of a
// live session.
func (s *Server) viewer(r *http.Request) (viewer, bool) {
	if s.access == Local {
		return viewer{CSRF: s.localCSRF}, true
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" || len(c.Value) > 100 {
		return viewer{}, false
	}
	sess, err := s.deps.Sessions.Session(r.Context(), c.Value)
	if err != nil {
		if !errors.Is(err, console.ErrNoSession) {
			s.deps.Log.Error("web: read session", "err", err)
		}
		return viewer{}, false
	}
	if !s.isAdmin(r.Context(), sess.UserID) {
		return viewer{}, false // no longer an admin: the session is worth nothing
	}
	return viewer{UserID: sess.UserID, SessionID: sess.ID, CSRF: sess.CSRF}, true
}

// tooLarge reads a change's form and tells whether its body was over
// maxForm (its fields would read as empty otherwise).
func tooLarge(r *http.Request) bool {
	var big *http.MaxBytesError
	return errors.As(r.ParseForm(), &big)
}

// isAdmin tells whether userID is an admin or owner now; a failure to
// tell is logged and counts as no.
func (s *Server) isAdmin(ctx context.Context, userID int64) bool {
	if s.deps.Who == nil {
		return true
	}
	_, admin, err := s.deps.Who(ctx, userID)
	if err != nil {
		s.deps.Log.Error("web: who is this admin", "err", err)
	}
	return admin
}

// validCSRF tells whether the request carries the page's token.
func validCSRF(r *http.Request, want string) bool {
	got := r.Header.Get("X-CSRF-Token")
	if got == "" {
		got = r.PostFormValue("csrf")
	}
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// sameOrigin tells whether a change comes from a page of this interface:
// its Origin (or, without one, its Referer) names the address it was
// asked at.
func (s *Server) sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		origin = r.Header.Get("Referer")
	}
	if origin == "" {
		// Not a browser: the CSRF token alone decides, where a login
		// stands behind it; without a login a page must say where from.
		return s.access != Local
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	if u.Host == r.Host {
		return true
	}
	if s.cfg.URL != "" {
		if own, err := url.Parse(s.cfg.URL); err == nil && own.Host == u.Host {
			return true
		}
	}
	return false
}

// setSessionCookie gives the browser its session.
func (s *Server) setSessionCookie(w http.ResponseWriter, token string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: token, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode,
	})
}
