// Package netcause says in words why a call to a service failed: the
// name did not resolve, nothing listens there, it did not answer in time,
// its certificate is not trusted, it refused the key, or it has no such
// thing; each with the setting to check. `membot doctor` and the waits of
// the bot's start-up say it the same way.
package netcause

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
)

// Service is what was called, and the settings that say where it is and
// with what key.
type Service struct {
	Name       string // "Telegram", "the model server"
	URLSetting string // "TELEGRAM_API_URL"
	KeySetting string // "TELEGRAM_BOT_TOKEN"; "" when it takes no key
	Key        string // what the key is called: "key" when ""
}

// Kind is what kind of failure it was.
type Kind int

// The kinds of failure.
const (
	Other Kind = iota
	DNS
	Refused
	Timeout
	TLS
	Unauthorized // 401 or 403: the key was refused
	NotFound     // 404
	Status       // another HTTP status
)

// Cause is a failure in words: what happened, and what to check.
type Cause struct {
	Kind Kind
	What string // "cannot resolve api.example"
	Fix  string // "check TELEGRAM_API_URL and DNS"
}

func (c Cause) String() string {
	if c.Fix == "" {
		return c.What
	}
	return c.What + ": " + c.Fix
}

// StatusError is an error of a server that answered with an HTTP error
// status; description is what it said of it. A code of 0 is no status.
type StatusError interface {
	HTTPStatus() (code int, description string)
}

// Explain says why err happened, for a call of s. err's text must hold
// no secret (the clients take their own out): an error of no known kind
// is quoted.
func Explain(err error, s Service) Cause {
	host := hostOf(err)
	where := s.Name
	if host != "" {
		where = host
	}
	key := s.Key
	if key == "" {
		key = "key"
	}
	var status StatusError
	if errors.As(err, &status) {
		if code, desc := status.HTTPStatus(); code != 0 {
			said := fmt.Sprintf("%d", code)
			if desc = strings.TrimSpace(desc); desc != "" {
				said += ": " + desc
			}
			switch code {
			case 401, 403:
				return Cause{Unauthorized, fmt.Sprintf("the %s was refused (%s)", key, said), check(s.KeySetting)}
			case 404:
				return Cause{NotFound, fmt.Sprintf("%s has no such thing (%s)", where, said), check(s.URLSetting)}
			}
			return Cause{Status, fmt.Sprintf("%s answered %s", where, said), ""}
		}
	}
	var dns *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var badHost x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	var record tls.RecordHeaderError
	switch {
	case errors.As(err, &dns):
		what := "cannot resolve " + dns.Name
		if !dns.IsNotFound {
			what += " (" + dns.Err + ")"
		}
		return Cause{DNS, what, check(s.URLSetting) + " and DNS"}
	case errors.Is(err, syscall.ECONNREFUSED):
		return Cause{Refused, fmt.Sprintf("nothing listens at %s (connection refused)", addrOf(err, where)),
			check(s.URLSetting) + " and that " + s.Name + " runs"}
	case errors.As(err, &unknownCA), errors.As(err, &badHost), errors.As(err, &invalid), errors.As(err, &verify):
		return Cause{TLS, fmt.Sprintf("the TLS certificate of %s is not trusted (%s)", where, certProblem(err)),
			check(s.URLSetting) + " and the server's certificate"}
	case errors.As(err, &record), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"): // net/http's words for it
		return Cause{TLS, fmt.Sprintf("%s does not speak TLS", where), check(s.URLSetting) + " (http:// rather than https://?)"}
	case isTimeout(err):
		return Cause{Timeout, fmt.Sprintf("no answer from %s in time", where), check(s.URLSetting) + ", the network and firewalls"}
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return Cause{Other, fmt.Sprintf("%s closed the connection", where), check(s.URLSetting) + ": its host, port and scheme"}
	}
	return Cause{Other, err.Error(), check(s.URLSetting)}
}

// check is "check SETTING", or "" for no setting.
func check(setting string) string {
	if setting == "" {
		return ""
	}
	return "check " + setting
}

func isTimeout(err error) bool {
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) ||
		errors.As(err, &netErr) && netErr.Timeout()
}

// hostOf is the host err was a call to, when it says: never the URL,
// whose path may hold a token (Telegram's /bot<token>/).
func hostOf(err error) string {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		if u, perr := url.Parse(urlErr.URL); perr == nil && u.Host != "" {
			return u.Host
		}
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Addr != nil {
		return op.Addr.String()
	}
	return ""
}

// addrOf is the address a connection was refused at.
func addrOf(err error, fallback string) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Addr != nil {
		return op.Addr.String()
	}
	return fallback
}

// certProblem says what is wrong with a certificate, briefly.
func certProblem(err error) string {
	var unknownCA x509.UnknownAuthorityError
	var badHost x509.HostnameError
	var invalid x509.CertificateInvalidError
	switch {
	case errors.As(err, &unknownCA):
		return "signed by an unknown authority"
	case errors.As(err, &badHost):
		return "made for another name: " + badHost.Error()
	case errors.As(err, &invalid):
		return invalid.Error()
	}
	return "it does not verify"
}
