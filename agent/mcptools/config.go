// Package mcptools offers the tools of MCP (Model Context Protocol)
// servers to the model: it reads the servers from a JSON file in the
// "mcpServers" format many clients share, starts the stdio ones and
// connects to the Streamable HTTP ones, lists their tools (again when a
// server says its list changed), and turns each into an agent.Tool whose
// calls go to its server, bounded in size and time. Everything a server
// sends is treated as hostile: counts, lengths and schemas are bounded.
package mcptools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The bounds of the servers file.
const (
	maxServers     = 16
	maxFileBytes   = 1 << 20
	defaultTimeout = 60 * time.Second
	maxTimeout     = 30 * time.Minute
)

// Server is one entry of the file: a stdio server (Command) or a
// Streamable HTTP one (URL).
type Server struct {
	Name string
	// Command, Args and Env start a stdio server. The process gets Env and
	// PATH, HOME and LANG of the bot's, never the bot's own settings: the
	// token and API keys stay in the bot.
	Command string
	Args    []string
	Env     map[string]string
	Dir     string // the working directory ("cwd"); a directory of its own when empty
	// URL and Headers reach a Streamable HTTP server (MCP 2025-06-18 or later).
	URL     string
	Headers map[string]string
	// AutoApprove names the server's tools (as the server names them) that
	// run without asking; every other call waits for a person's approval.
	AutoApprove []string
	// AutoApproveUsers, when set, are the only users for whom AutoApprove
	// holds; when nil, it holds in private chats and, in groups, for the
	// bot's admins.
	AutoApproveUsers []int64
	// Trusted: the operator trusts what the server writes, its tools'
	// descriptions and results; otherwise they are outside text.
	Trusted bool
	// Timeout bounds one call of a tool, and the server's start (at least
	// minStart).
	Timeout time.Duration
	// perMinute bounds what a stdio server writes in a minute;
	// maxBytesPerMinute when 0 (tests set less).
	perMinute int
}

// Transport is "stdio" or "http".
func (s *Server) Transport() string {
	if s.URL != "" {
		return "http"
	}
	return "stdio"
}

// entry is an entry of the file as written.
type entry struct {
	Command     string            `json:"command"`
	Args        []string          `json:"args"`
	Env         map[string]string `json:"env"`
	Cwd         string            `json:"cwd"`
	URL         string            `json:"url"`
	Headers     map[string]string `json:"headers"`
	Type        string            `json:"type"`     // other clients' "stdio", "http", "streamable-http"
	Disabled    bool              `json:"disabled"` // other clients' way to keep an entry off
	AutoApprove []string          `json:"autoApprove"`
	// AutoApproveUsers are Telegram user ids; null or absent: the default.
	AutoApproveUsers []int64 `json:"autoApproveUsers"`
	Trusted          bool    `json:"trusted"`
	Timeout          string  `json:"timeout"` // a Go duration: "30s", "2m"
}

// serverName is what a server may be called: its tools' names may carry it.
var serverName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,40}$`)

// Load reads the servers file (MCP_SERVERS). Entries with "disabled": true
// are left out. An error names the server and the field.
func Load(path string) ([]Server, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxFileBytes {
		return nil, fmt.Errorf("%s: longer than %d bytes", path, maxFileBytes)
	}
	return Parse(raw)
}

// Parse reads the servers of a file's contents.
func Parse(raw []byte) ([]Server, error) {
	var file struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&file); err != nil {
		return nil, fmt.Errorf("not a JSON object with mcpServers: %w", err)
	}
	if file.Servers == nil {
		return nil, errors.New(`no "mcpServers" object`)
	}
	if len(file.Servers) > maxServers {
		return nil, fmt.Errorf("%d servers; at most %d", len(file.Servers), maxServers)
	}
	var servers []Server
	for _, name := range slices.Sorted(maps.Keys(file.Servers)) {
		s, err := parseEntry(name, file.Servers[name])
		if err != nil {
			return nil, fmt.Errorf("server %q: %w", name, err)
		}
		if s != nil {
			servers = append(servers, *s)
		}
	}
	return servers, nil
}

func parseEntry(name string, raw json.RawMessage) (*Server, error) {
	if !serverName.MatchString(name) {
		return nil, errors.New("a name is 1-40 characters of A-Z, a-z, 0-9, _, . and -")
	}
	var e entry
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields() // a misspelt "autoApprove" must not pass unnoticed
	if err := dec.Decode(&e); err != nil {
		return nil, err
	}
	if e.Disabled {
		return nil, nil
	}
	s := &Server{Name: name, Command: e.Command, Args: e.Args, Env: e.Env, Dir: e.Cwd, URL: e.URL, Headers: e.Headers,
		AutoApprove: e.AutoApprove, AutoApproveUsers: e.AutoApproveUsers, Trusted: e.Trusted, Timeout: defaultTimeout}
	switch {
	case (e.Command == "") == (e.URL == ""):
		return nil, errors.New(`give either "command" (a stdio server) or "url" (a Streamable HTTP server)`)
	case e.Command != "" && (len(e.Headers) > 0 || !slices.Contains([]string{"", "stdio"}, e.Type)):
		return nil, errors.New(`a stdio server ("command") takes no "headers", and its "type" is "stdio"`)
	case e.URL != "" && (len(e.Args) > 0 || len(e.Env) > 0 || e.Cwd != "" || !slices.Contains([]string{"", "http", "streamable-http", "streamableHttp"}, e.Type)):
		return nil, errors.New(`an HTTP server ("url") takes no "args", "env" or "cwd", and its "type" is "http"`)
	}
	if e.URL != "" {
		u, err := url.Parse(e.URL)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, errors.New(`"url" must be an http or https URL`) // the URL itself may carry a secret
		}
	}
	for k := range e.Headers {
		if k == "" || strings.ContainsAny(k, " :\r\n") {
			return nil, fmt.Errorf("the header name %q is not valid", k)
		}
	}
	for k := range e.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, fmt.Errorf("the env name %q is not valid", k)
		}
	}
	if e.AutoApproveUsers != nil && len(e.AutoApprove) == 0 {
		return nil, errors.New(`"autoApproveUsers" names who may run the "autoApprove" tools without asking: give "autoApprove" too`)
	}
	if e.Timeout != "" {
		d, err := time.ParseDuration(e.Timeout)
		if err != nil || d <= 0 || d > maxTimeout {
			return nil, fmt.Errorf(`"timeout" must be a duration such as "30s" or "2m", at most %v`, maxTimeout)
		}
		s.Timeout = d
	}
	return s, nil
}
