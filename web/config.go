package web

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// Config is the web interface's settings.
type Config struct {
	// Addr is where it listens (WEB_ADDR); empty turns it off.
	Addr string
	// URL is the address people reach it at (WEB_URL): HTTPS, or plain
	// HTTP on a loopback address. Set, every page needs a session from an
	// admin's /web link, and /memory opens the Mini App; unset, the
	// interface serves a loopback Addr without a login and no other.
	URL string
	// LinkTTL is how long a /web sign-in link may be used (once).
	LinkTTL time.Duration
	// SessionTTL is how long a session lasts after signing in.
	SessionTTL time.Duration
	// InitDataTTL is how old a Mini App's signed launch data may be.
	InitDataTTL time.Duration
	// Location is the zone days are counted in (TIMEZONE).
	Location *time.Location
	// DailyTokenLimit is the per-user budget drawn on the usage chart (0: none).
	DailyTokenLimit int64
}

// DefaultConfig is the web interface on the machine's own loopback address.
func DefaultConfig() Config {
	return Config{
		Addr:        "127.0.0.1:8080",
		LinkTTL:     10 * time.Minute,
		SessionTTL:  12 * time.Hour,
		InitDataTTL: 24 * time.Hour,
		Location:    time.UTC,
	}
}

// Access is who may see the pages.
type Access int

const (
	// Off: the interface does not listen.
	Off Access = iota
	// Local: a loopback address, without a login, as local tools are.
	Local
	// SignedIn: every page needs a session from an admin's /web link.
	SignedIn
)

// Check tells a malformed WEB_URL, which stops start-up as any malformed
// setting does.
func (c Config) Check() error {
	if c.URL == "" {
		return nil
	}
	u, err := url.Parse(c.URL)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("WEB_URL must be an https:// address (got %q)", c.URL)
	}
	if u.Scheme == "http" && !loopback(u.Host) {
		return fmt.Errorf("WEB_URL must be https:// unless it is a loopback address (got %q): sign-in cookies and Telegram's Mini Apps need HTTPS", c.URL)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("WEB_URL must be a plain address, without credentials, query or fragment")
	}
	return nil
}

// Access is who may see the pages with these settings, and, when the
// interface stays off, why in words.
func (c Config) Access() (Access, string) {
	switch {
	case c.Addr == "":
		return Off, "WEB_ADDR is empty"
	case c.URL != "":
		return SignedIn, ""
	case loopback(c.Addr):
		return Local, ""
	default:
		return Off, fmt.Sprintf("WEB_ADDR %s is not a loopback address and WEB_URL is not set: "+
			"pages without a login are served on 127.0.0.1 only; set WEB_URL (the HTTPS address people reach it at) to sign in with /web", c.Addr)
	}
}

// MiniApp tells whether /memory opens the Mini App: Telegram opens only
// HTTPS addresses.
func (c Config) MiniApp() bool { return strings.HasPrefix(c.URL, "https://") }

// loopback tells whether hostport (or a bare host) names this machine only.
func loopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
