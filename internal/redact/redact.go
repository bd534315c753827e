// Package redact takes secrets (the bot token, API keys) out of text
// before it is logged, stored or shown: a server that echoes a request back
// in its error must not make the secret part of the record. Secrets, built
// once at start from every secret setting, guards where text leaves the
// process (the log's writer, the store); String and Error serve a client
// that takes its own secret out of its errors.
package redact

import (
	"io"
	"net/url"
	"strings"
)

// minSecret is the shortest value treated as a secret: replacing a one- or
// two-character "key" would garble every message without protecting anything.
const minSecret = 6

// String replaces every occurrence of each secret in s by mark.
func String(s, mark string, secrets ...string) string {
	for _, secret := range secrets {
		if len(secret) >= minSecret {
			s = strings.ReplaceAll(s, secret, mark)
		}
	}
	return s
}

// Error returns err with every secret replaced by mark in its text, keeping
// the chain for errors.Is and errors.As; err itself when no secret is in it.
func Error(err error, mark string, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if clean := String(msg, mark, secrets...); clean != msg {
		return &redacted{msg: clean, err: err}
	}
	return err
}

type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }

// Mark is what Secrets puts where a secret was.
const Mark = "<redacted>"

// Secrets is every secret a running bot knows (the bot token, the API
// keys, the webhook's secret, ...), built once at start and applied where
// text leaves the process: the log's writer and the database's columns.
// Call sites need not remember it. The zero value and nil hide nothing.
type Secrets struct {
	replacer *strings.Replacer
}

// New makes the Secrets of values; empty and too short ones are left out.
func New(values ...string) *Secrets {
	var pairs []string
	for _, v := range values {
		if len(v) >= minSecret {
			pairs = append(pairs, v, Mark)
		}
	}
	if len(pairs) == 0 {
		return &Secrets{}
	}
	return &Secrets{replacer: strings.NewReplacer(pairs...)}
}

// String is s with every secret replaced by Mark.
func (r *Secrets) String(s string) string {
	if r == nil || r.replacer == nil {
		return s
	}
	return r.replacer.Replace(s)
}

// Writer writes to w what is written to it with every secret replaced:
// the log's writer, so that no log line (of the program, of a library, of
// the HTTP servers' error logs) can carry one. A secret is found within
// one Write, which for a log handler is one whole line.
func (r *Secrets) Writer(w io.Writer) io.Writer {
	if r == nil || r.replacer == nil {
		return w
	}
	return &writer{w: w, r: r.replacer}
}

type writer struct {
	w io.Writer
	r *strings.Replacer
}

func (w *writer) Write(p []byte) (int, error) {
	if _, err := w.r.WriteString(w.w, string(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// URLs is s with the credentials and the query of every URL in it
// replaced by Mark: "https://user:sk-key@host/v1?key=sk-key" reads
// "https://<redacted>@host/v1?<redacted>". It needs no list of secrets,
// so it serves where none is known yet (a setting that failed to parse),
// and it reads malformed URLs too: everything between "://" and the last
// "@" of the URL, and everything after its first "?" or "#", is taken out.
// A URL ends at a space, a quote or an angle bracket.
func URLs(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+3])
		s = s[i+3:]
		end := strings.IndexFunc(s, endsURL)
		if end < 0 {
			end = len(s)
		}
		b.WriteString(urlTail(s[:end]))
		s = s[end:]
	}
}

// URL is one URL as set, however malformed, with its credentials and
// query taken out as URLs does; without "://" ("https//key@host") the
// whole value is read as what follows it.
func URL(value string) string {
	if i := strings.Index(value, "://"); i >= 0 {
		return value[:i+3] + urlTail(value[i+3:])
	}
	return urlTail(value)
}

// urlTail is what follows "://" in a URL, its credentials and query taken out.
func urlTail(rest string) string {
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		rest = Mark + rest[at:]
	}
	if q := strings.IndexAny(rest, "?#"); q >= 0 && q+1 < len(rest) {
		rest = rest[:q+1] + Mark
	}
	return rest
}

func endsURL(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', '<', '>':
		return true
	}
	return false
}

// URLSecrets are the parts of a URL that may hold a secret, for Secrets:
// its password (or its user, when it has no password), its query and
// each value of the query. None when
// the URL has none, or cannot be read.
func URLSecrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var out []string
	if u.User != nil {
		if p, ok := u.User.Password(); ok {
			out = append(out, p)
		} else {
			out = append(out, u.User.Username()) // https://sk-key@host: the user is the key
		}
	}
	if u.RawQuery != "" {
		out = append(out, u.RawQuery)
		for _, values := range u.Query() {
			out = append(out, values...)
		}
	}
	return out
}
