// Package web is membot's web interface, served by the bot itself: the
// operator's pages (what the bot remembers and why, conversations, usage,
// what it waits on, tool servers, sessions) and each user's own memory as a
// Telegram Mini App. Pages are rendered on the server with html/template;
// the two client libraries (htmx, uPlot) and the page's own script are
// embedded. Every page also answers JSON (Accept: application/json).
package web

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/console"
)

// Events is the event log as the pages write it, and the Mini App's
// exports are counted in it with /export's (memory.Events).
type Events interface {
	AddEvents(ctx context.Context, events ...memory.Event) error
	ExportAgain(ctx context.Context, userID int64, perHour int, now time.Time) (time.Time, error)
}

// ToolServer is an MCP server as /tools shows it.
type ToolServer struct {
	Name      string   `json:"name"`
	Transport string   `json:"transport"`
	State     string   `json:"state"`
	Why       string   `json:"why,omitempty"`
	Tools     int      `json:"tools"`
	Trusted   bool     `json:"trusted"`
	LeftOut   []string `json:"left_out,omitempty"` // over MCP_TOOLS_BUDGET
}

// Deps are the parts the pages use. Checks, Servers and Export may be nil.
type Deps struct {
	// The stores, each declaring what its pages use (memory/console.Store
	// is the first six, memory's stores the others).
	Sessions      SessionStore      // sign-ins and sessions: signin.go, guard.go
	Overview      OverviewStore     // overview.go
	Conversations ConversationStore // conversations.go
	Memory        MemoryStore       // each user's memory: usermemory.go, miniapp.go
	Usage         UsageStore        // usage.go
	Waits         WaitStore         // what the bot waits on: waits.go, miniapp.go
	Facts         Facts             // usermemory.go, miniapp.go
	Search        Search            // conversations.go, miniapp.go
	Events        Events            // every change, and the Mini App's exports
	Access        AccessStore       // access.go
	// Export is every row of a user as JSON (userdata.Store.Export).
	Export func(ctx context.Context, userID int64) (map[string]json.RawMessage, error)
	// Checks runs the setup's checks for the overview.
	Checks func(ctx context.Context) []Check
	// Servers is the MCP servers' state now.
	Servers func() []ToolServer
	// Origin words where a user row came from (agent.UserRow's origin).
	Origin func(console.From) string
	// Rules is what the settings say of who may use the bot; the access
	// page shows it beside what Access keeps.
	Rules func() AccessRules
	// Decided tells whoever asked what was decided on their request, as
	// the owner's buttons in Telegram do.
	Decided func(ctx context.Context, req memory.AccessRequest, status string)
	// Settings are the settings the bot runs with, secrets masked.
	Settings func() []Setting
	// Who tells whether the bot serves userID (only they open the Mini
	// App) and whether they are an admin or owner (only they sign in).
	Who func(ctx context.Context, userID int64) (serves, admin bool, err error)
	// ExportsPerHour bounds a user's exports from the Mini App, counted
	// with their /export (EXPORTS_PER_HOUR).
	ExportsPerHour int
	// BotToken verifies the Mini App's launch data; it is never rendered.
	BotToken string
	Log      *slog.Logger
}

// Server is the web interface.
type Server struct {
	cfg    Config
	deps   Deps
	access Access
	// localCSRF guards the changes of a Local interface, which has no
	// sessions to keep a token in: the pages carry it, other sites
	// cannot read it.
	localCSRF string
	mux       *http.ServeMux
	pages     map[string]*template.Template
	checks    checkRun
	// serving is set once the interface listens: without it /memory
	// offers no Mini App (a taken port, say).
	serving  atomic.Bool
	refusals sync.Once // a refused Host or proxy is logged once
}

// New is the interface with cfg's settings; Access tells whether it is
// to be served at all.
func New(cfg Config, deps Deps) *Server {
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
	if deps.Log == nil {
		deps.Log = slog.Default()
	}
	access, _ := cfg.Access()
	s := &Server{cfg: cfg, deps: deps, access: access, localCSRF: randomToken(), mux: http.NewServeMux(),
		pages: parsePages(cfg.Location)}
	s.routes()
	return s
}

// Handler is the interface's handler, every response with its security
// headers and every request checked for whom it is from.
func (s *Server) Handler() http.Handler { return s.secured(s.mux) }

// NewSignInLink makes a one-time sign-in link for an admin's /web.
func (s *Server) NewSignInLink(ctx context.Context, userID int64) (string, error) {
	if s.access != SignedIn {
		return "", errors.New("the web interface has no sign-in: WEB_URL is not set")
	}
	token := randomToken()
	if err := s.deps.Sessions.AddSignInLink(ctx, token, userID, s.cfg.LinkTTL); err != nil {
		return "", err
	}
	return s.cfg.URL + "/signin?token=" + token, nil
}

// SignInTTL is how long a sign-in link may be used.
func (s *Server) SignInTTL() time.Duration { return s.cfg.LinkTTL }

// Where says how the pages are reached without a sign-in (a Local
// interface's address), or why they are off; both empty when /web links
// sign in.
func (s *Server) Where() (localAddr, off string) {
	switch access, why := s.cfg.Access(); access {
	case Off:
		return "", why
	case Local:
		return s.cfg.Addr, ""
	}
	return "", ""
}

// Serving notes that the interface listens.
func (s *Server) Serving() { s.serving.Store(true) }

// MiniAppURL is the address /memory opens as a Mini App, empty without
// one (no HTTPS WEB_URL, or the interface does not listen).
func (s *Server) MiniAppURL() string {
	if !s.cfg.MiniApp() || !s.serving.Load() {
		return ""
	}
	return s.cfg.URL + "/app"
}

// randomToken is 32 random bytes, URL-safe.
func randomToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
