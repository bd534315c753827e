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

// URL is raw without what may be secret in it: the password of its user
// and its query (some servers take the key as ?key=...). What is not a URL
// is Mark.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return Mark
	}
	if u.RawQuery != "" {
		u.RawQuery = "<redacted>"
	}
	u.Fragment = ""
	return u.Redacted()
}
