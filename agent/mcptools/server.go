package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

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
	maxBodyBytes = 4 << 20 // one JSON response of an HTTP server
	// minStart is the least a server's start (its process, the handshake,
	// the listing) is given, whatever its timeout: a short timeout for calls
	// must not keep a server that starts slowly from ever starting.
	minStart = 10 * time.Second
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

	mu      sync.Mutex
	session *session
	state   string
	tools   []*mcp.Tool
	down    error            // why it is down
	retryAt time.Time        // not started again before
	wait    *backoff.Backoff // the delays between failed starts
	crashes int              // the sessions lost since a call last went through

	relist chan struct{}
	http   *http.Client // of a Streamable HTTP server: one for every session, so connections are reused
}

func newServer(bot context.Context, cfg Server, log *slog.Logger, changed func()) *server {
	s := &server{cfg: cfg, log: log.With("mcp_server", cfg.Name), changed: changed, bot: bot,
		start: make(chan struct{}, 1), state: StateStarting, wait: backoff.New(time.Second, 5*time.Minute),
		relist: make(chan struct{}, 1), http: httpClient(cfg.Headers)}
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
	var transport mcp.Transport
	var proc *process
	if s.cfg.URL != "" {
		transport = &mcp.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: s.http, MaxRetries: 2}
	} else {
		var err error
		if proc, transport, err = startProcess(s.bot, s.cfg, s.log, s.cleanText); err != nil {
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
	s.session, s.tools, s.state, s.down = live, tools, StateReady, nil
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

// stop closes the session and stops the server's process, for the bot's end.
func (s *server) stop() {
	s.mu.Lock()
	live := s.session
	s.mu.Unlock()
	if live != nil {
		live.end(nil)
	}
}

// Status is a server as /tools shows it.
type Status struct {
	Name      string
	Transport string // "stdio" or "http"
	State     string // StateStarting, StateReady or StateDown
	Tools     int    // the tools it listed last
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Status{Name: s.cfg.Name, Transport: s.cfg.Transport(), State: s.state, Tools: len(s.tools)}
}

// listed returns the tools the server listed last.
func (s *server) listed() []*mcp.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tools)
}

// httpClient is the client of a Streamable HTTP server: it sends the
// configured headers with every request and bounds JSON responses (an
// event stream's events are bounded by the SDK).
func httpClient(headers map[string]string) *http.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.ResponseHeaderTimeout = 30 * time.Second
	return &http.Client{Transport: &withHeaders{base: base, headers: headers}}
}

// retryTime is when the server may be started again after a failure.
func (s *server) retryTime() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.retryAt
}
