package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/internal/backoff"
	"github.com/membot/membot/internal/redact"
)

// The states of a server, as /tools shows them.
const (
	StateStarting = "starting" // not yet connected once
	StateReady    = "ready"
	StateDown     = "down" // it failed to start, or stopped; tried again at the next use
)

// The bounds on what a server may send and take.
const (
	maxLineBytes = 4 << 20 // one message of a stdio server
	maxBodyBytes = 4 << 20 // one response of an HTTP server that is not an event stream
	// One event of an HTTP server's event stream, and the bytes and events
	// of one stream (a call's answer, or the stream the server may keep
	// open to send what it wants): past them the server is disconnected.
	maxEventBytes   = 4 << 20
	maxStreamBytes  = 16 << 20
	maxStreamEvents = 1000
	// maxBytesPerMinute bounds what a stdio server writes: past it (in a
	// minute, or in one burst) it is stopped.
	maxBytesPerMinute = 64 << 20
	// minStart is the least a server's start (its process, the handshake,
	// the listing) is given, whatever its timeout: a short timeout for calls
	// must not keep a server that starts slowly from ever starting.
	minStart = 10 * time.Second
	// ConnectWait is how long the bot waits at start-up for its servers to
	// be tried once before it handles updates (a turn taken over from a
	// run that stopped is to see their tools).
	ConnectWait = minStart
	// relistEvery spaces the listings a server's "my tools changed" asks
	// for: a server sending it in a loop costs one listing a second.
	relistEvery = time.Second
)

// server is one MCP server: its session while connected, the tools it
// listed last, and when it may be started again after a failure.
type server struct {
	cfg     Server
	log     *slog.Logger
	secrets []string // the header and env values and the URL: kept out of every error text
	changed func()   // told when the tool list changed
	bot     context.Context

	start chan struct{} // held while connecting: one start at a time

	mu       sync.Mutex
	session  *session
	state    string
	tools    []*mcp.Tool
	down     error            // why it is down
	retryAt  time.Time        // not started again before
	wait     *backoff.Backoff // the delays between failed starts
	crashes  int              // the sessions lost since a call last went through
	breached error            // the bound the server broke, while it is disconnected for it
	identity string           // the name and version it announced at initialize
	dir      string           // a stdio server's working directory when its entry names none; made at its first start

	relist chan struct{}
	http   *http.Client // of a Streamable HTTP server: one for every session, so connections are reused
}

func newServer(bot context.Context, cfg Server, log *slog.Logger, changed func()) *server {
	s := &server{cfg: cfg, log: log.With("mcp_server", cfg.Name), changed: changed, bot: bot,
		start: make(chan struct{}, 1), state: StateStarting, wait: backoff.New(time.Second, 5*time.Minute),
		relist: make(chan struct{}, 1)}
	s.http = httpClient(cfg.Headers, s.misbehaved)
	s.secrets = cfg.Secrets()
	return s
}

// Secrets are the values of the server's entry that may be secret: its
// headers' and environment's values, and its URL (whose query or user may
// carry a token: errors say the server's name instead).
func (cfg Server) Secrets() []string {
	var secrets []string
	for _, v := range cfg.Headers {
		secrets = append(secrets, v)
	}
	for _, v := range cfg.Env {
		secrets = append(secrets, v)
	}
	if cfg.URL != "" {
		secrets = append(secrets, cfg.URL)
		if u, err := url.Parse(cfg.URL); err == nil {
			secrets = append(secrets, u.Query().Encode(), u.RawQuery, u.User.String())
		}
	}
	return secrets
}

// clean takes the server's secrets out of an error.
func (s *server) clean(err error) error {
	return redact.Error(err, "<"+s.cfg.Name+">", s.secrets...)
}

// cleanText takes the server's secrets out of a text.
func (s *server) cleanText(text string) string {
	return redact.String(text, "<"+s.cfg.Name+">", s.secrets...)
}

// connected returns the server's session, starting the server (or
// connecting to it) when it has none and its backoff allows.
func (s *server) connected(ctx context.Context) (*session, error) {
	select {
	case s.start <- struct{}{}:
		defer func() { <-s.start }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	s.mu.Lock()
	live, down, retryAt := s.session, s.down, s.retryAt
	s.mu.Unlock()
	if live != nil {
		return live, nil
	}
	if wait := time.Until(retryAt); wait > 0 {
		return nil, fmt.Errorf("the MCP server %s is down (%v); it is tried again in %v", s.cfg.Name, down, wait.Round(time.Second))
	}
	startIn := max(s.cfg.Timeout, minStart)
	startCtx, cancel := context.WithTimeout(ctx, startIn)
	defer cancel()
	live, tools, err := s.connect(startCtx)
	if err != nil {
		if startCtx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("it did not start within %v", startIn)
		}
		err = s.clean(err)
		s.mu.Lock()
		if s.breached != nil {
			err = s.breached
		}
		delay := s.wait.Next()
		first := s.state != StateDown
		s.state, s.down, s.retryAt = StateDown, err, time.Now().Add(delay)
		s.mu.Unlock()
		level := slog.LevelWarn
		if !first {
			level = slog.LevelDebug // the first failure was said; the rest of the streak is noise
		}
		s.log.Log(ctx, level, "MCP server failed to start; its tools fail until it starts", "transport", s.cfg.Transport(), "err", err, "retry_in", delay.Round(time.Second))
		return nil, fmt.Errorf("the MCP server %s failed to start: %w", s.cfg.Name, err)
	}
	s.log.Info("MCP server ready", "transport", s.cfg.Transport(), "tools", len(tools))
	s.changed()
	return live, nil
}

// session is a server's session, and the process of a stdio server.
type session struct {
	cs   *mcp.ClientSession
	proc *process
}

// end closes the session and stops its process; it returns err with how
// the process ended, if it did.
func (live *session) end(err error) error {
	live.cs.Close()
	if live.proc == nil {
		return err
	}
	live.proc.stop()
	return live.proc.explain(err)
}

// connect starts (or reaches) the server, opens a session and lists its
// tools; the session is the server's from then on.
func (s *server) connect(ctx context.Context) (*session, []*mcp.Tool, error) {
	s.mu.Lock()
	s.breached = nil // a bound broken from now on is this session's
	s.mu.Unlock()
	var transport mcp.Transport
	var proc *process
	if s.cfg.URL != "" {
		// The SDK reads a zero MaxEventSize as no bound at all: it is set,
		// besides the bounds of the client's bodies.
		transport = &mcp.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: s.http, MaxRetries: 2, MaxEventSize: maxEventBytes}
	} else {
		dir, err := s.workDir()
		if err != nil {
			return nil, nil, err
		}
		if proc, transport, err = startProcess(s.bot, s.cfg, dir, s.log, s.cleanText, s.misbehaved); err != nil {
			return nil, nil, err
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "membot", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case s.relist <- struct{}{}:
			default: // one is due already
			}
		},
	})
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		if proc != nil {
			proc.stop()
			err = proc.explain(err)
		}
		return nil, nil, err
	}
	live := &session{cs: cs, proc: proc}
	tools, err := s.list(ctx, cs)
	if err != nil {
		return nil, nil, live.end(err)
	}
	s.mu.Lock()
	if why := s.breached; why != nil { // while it started (the stream it keeps open, say)
		s.mu.Unlock()
		return nil, nil, live.end(why)
	}
	s.session, s.tools, s.state, s.down = live, tools, StateReady, nil
	s.identity = identity(cs.InitializeResult())
	s.mu.Unlock()
	go s.watch(live)
	return live, tools, nil
}

// watch waits for the session to end (the process exited, the
// connection broke, the bot stopped), and meanwhile lists the tools again
// whenever the server says they changed.
func (s *server) watch(live *session) {
	ended := make(chan error, 1)
	go func() { ended <- live.cs.Wait() }()
	var last time.Time
	for {
		select {
		case err := <-ended:
			s.forget(live, err)
			return
		case <-s.relist:
			if !backoff.Sleep(s.bot, time.Until(last.Add(relistEvery))) {
				continue // the bot is stopping: ended comes next
			}
			last = time.Now()
			ctx, cancel := context.WithTimeout(s.bot, s.cfg.Timeout)
			tools, err := s.list(ctx, live.cs)
			cancel()
			if err != nil {
				s.log.Warn("listing the MCP server's tools again failed; the old list stays", "err", s.clean(err))
				continue
			}
			s.mu.Lock()
			s.tools = tools
			s.mu.Unlock()
			s.log.Info("MCP server's tools changed", "tools", len(tools))
			s.changed()
		}
	}
}

// forget ends the session, which ended or broke (err): the next use
// starts the server again. It returns err with how the process ended,
// without the server's secrets.
func (s *server) forget(live *session, err error) error {
	s.mu.Lock()
	current := s.session == live
	if s.breached != nil {
		err = s.breached // the cause; what the SDK saw is a consequence
	}
	if current {
		s.session, s.state = nil, StateDown
		// The first restart is at the next call; one that stops again
		// before a call went through waits longer each time.
		if s.crashes > 0 {
			s.retryAt = time.Now().Add(s.wait.Next())
		}
		s.crashes++
	}
	s.mu.Unlock()
	err = s.clean(live.end(err)) // the call that broke it and the watcher both wait for the end
	if !current {
		return err // forgotten already
	}
	s.mu.Lock()
	s.down = err
	s.mu.Unlock()
	if s.bot.Err() == nil {
		s.log.Warn("MCP server stopped; it is started again at the next call of one of its tools", "err", err)
	}
	return err
}

// call calls the server's tool with the arguments, within the server's timeout.
func (s *server) call(ctx context.Context, tool string, args json.RawMessage) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	live, err := s.connected(ctx)
	if err != nil {
		return "", s.timedOut(ctx, err)
	}
	if pin, ok := agent.PinOf(ctx); ok && pin.Identity != "" {
		if now := identity(live.cs.InitializeResult()); now != pin.Identity {
			return "", fmt.Errorf("not run: the MCP server %s now announces itself as %q, not %q as when the call was approved", s.cfg.Name, now, pin.Identity)
		}
	}
	res, err := live.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	var rpcErr *jsonrpc.Error
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return "", s.timedOut(ctx, err)
	case errors.As(err, &rpcErr):
		return "", fmt.Errorf("the MCP server %s refused the call: %w", s.cfg.Name, s.clean(err))
	default:
		return "", fmt.Errorf("the MCP server %s failed during the call (%w); it is started again at the next call", s.cfg.Name, s.forget(live, err))
	}
	s.mu.Lock()
	s.crashes = 0 // a call went through: a later failure starts its backoff over
	s.wait.Reset()
	s.mu.Unlock()
	text, err := resultText(res)
	if err != nil {
		return "", fmt.Errorf("the tool %s of the MCP server %s failed: %w", tool, s.cfg.Name, err)
	}
	return text, nil
}

// timedOut says a call ran out of time, when it did.
func (s *server) timedOut(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("the MCP server %s did not answer within %v", s.cfg.Name, s.cfg.Timeout)
	}
	return err
}

// stop closes the session and stops the server's process, for the bot's
// end, and removes the working directory made for it.
func (s *server) stop() {
	s.mu.Lock()
	live, dir := s.session, s.dir
	s.mu.Unlock()
	if live != nil {
		live.end(nil)
	}
	if dir != "" {
		os.RemoveAll(dir)
	}
}

// workDir is where a stdio server runs: its entry's "cwd", else a
// directory of its own, made at its first start, never the bot's (where
// the bot's .env may lie).
func (s *server) workDir() (string, error) {
	if s.cfg.Dir != "" {
		return s.cfg.Dir, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		dir, err := os.MkdirTemp("", "membot-mcp-"+s.cfg.Name+"-")
		if err != nil {
			return "", fmt.Errorf("a working directory: %w", err)
		}
		s.dir = dir
	}
	return s.dir, nil
}

// Status is a server as /tools shows it.
type Status struct {
	Name      string
	Transport string // "stdio" or "http"
	State     string // StateStarting, StateReady or StateDown
	Why       string // why it is down, in a line ("" when not down)
	Tools     int    // the tools it listed last
	Trusted   bool   // the operator trusts what it writes ("trusted": true)
	// LeftOut are the names (the server's) of its tools not offered: all
	// tools together were over the budget (MCP_TOOLS_BUDGET).
	LeftOut []string
}

// maxWhy bounds the reason /tools shows: a server's error may be long.
const maxWhy = 200

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.cfg.Name, Transport: s.cfg.Transport(), State: s.state, Tools: len(s.tools), Trusted: s.cfg.Trusted}
	if s.state == StateDown && s.down != nil {
		st.Why = printable(s.down.Error())
		if r := []rune(st.Why); len(r) > maxWhy {
			st.Why = string(r[:maxWhy]) + "…"
		}
	}
	return st
}

// identity is what a server announced itself as at initialize: its name
// and version ("" when it said nothing).
func identity(res *mcp.InitializeResult) string {
	if res == nil || res.ServerInfo == nil {
		return ""
	}
	return printable(res.ServerInfo.Name + " " + res.ServerInfo.Version)
}

// announced returns the identity of the server's live session, "" when it
// has none.
func (s *server) announced() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.identity
}

// listed returns the tools the server listed last.
func (s *server) listed() []*mcp.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tools)
}

// httpClient is the client of a Streamable HTTP server: it sends the
// configured headers with every request and bounds every response, telling
// breach when one breaks a bound.
func httpClient(headers map[string]string, breach func(error)) *http.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.ResponseHeaderTimeout = 30 * time.Second
	return &http.Client{Transport: &withHeaders{base: base, headers: headers, breach: breach}}
}

// misbehaved disconnects the server, which broke a bound (why): its
// session ends, the call waiting on it fails, and /tools shows it down
// with why until it is started again at the next call.
func (s *server) misbehaved(why error) {
	why = fmt.Errorf("disconnected: %w", why)
	s.mu.Lock()
	live := s.session
	s.breached = why
	s.mu.Unlock()
	s.log.Warn("the MCP server broke a bound; it is disconnected", "err", why)
	if live != nil {
		go s.forget(live, why) // not from within a read of the session
	}
}

// retryTime is when the server may be started again after a failure.
func (s *server) retryTime() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.retryAt
}
