// Package redact takes secrets (the bot token, API keys) out of error texts
// before they are logged, stored or shown: a server that echoes a request
// back in its error must not make the secret part of the record.
package redact

import "strings"

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
