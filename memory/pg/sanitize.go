package pg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/membot/membot/internal/redact"
)

// PostgreSQL refuses a NUL byte in text, invalid UTF-8 anywhere, and in
// jsonb also the escapes \u0000 and lone UTF-16 surrogates. Text from
// outside (Telegram, the model, a tool) may hold any of them, so everything
// is cleaned on its way in: a stray byte must never fail a turn or stall the
// inbox. NUL is dropped; invalid bytes become U+FFFD.

// CleanText makes s storable in a text column.
func CleanText(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// Secrets are the secrets taken out of what is stored (nil until Hide:
// none). Its methods are safe for concurrent use.
type Secrets struct {
	p atomic.Pointer[redact.Secrets]
}

// Hide makes Storable take secrets out from now on: a model server or
// Telegram that echoes the token or a key in an error must not make it
// part of the record.
func (s *Secrets) Hide(secrets *redact.Secrets) { s.p.Store(secrets) }

// Storable is text made storable, with the secrets taken out.
func (s *Secrets) Storable(text string) string { return CleanText(s.p.Load().String(text)) }

// StorableValue is a decoded JSON value cleaned as CleanJSON cleans it,
// with the secrets taken out of every string.
func (s *Secrets) StorableValue(v any) any { return eachString(v, s.Storable) }

// suspectEscape finds the JSON escapes jsonb refuses: \u0000 and surrogates
// (valid pairs match too; re-encoding them changes nothing that matters).
var suspectEscape = regexp.MustCompile(`\\u(0000|[dD][89abAB][0-9a-fA-F]{2})`)

// CleanJSON makes a JSON document storable in a jsonb column. Clean
// documents, nearly all of them, are returned untouched.
func CleanJSON(raw []byte) ([]byte, error) {
	if utf8.Valid(raw) && !suspectEscape.Match(raw) {
		return raw, nil
	}
	// Decoding turns invalid UTF-8 and lone surrogates into U+FFFD;
	// cleanValue drops the NULs; numbers stay exactly as they were.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("clean json: %w", err)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(cleanValue(v)); err != nil {
		return nil, fmt.Errorf("clean json: %w", err)
	}
	return bytes.TrimRight(out.Bytes(), "\n"), nil
}

// cleanValue cleans every string (keys included) of a decoded JSON value.
func cleanValue(v any) any { return eachString(v, CleanText) }

// eachString is v, a decoded JSON value, with fn applied to every string
// (keys included).
func eachString(v any, fn func(string) string) any {
	switch v := v.(type) {
	case string:
		return fn(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[fn(k)] = eachString(x, fn)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = eachString(x, fn)
		}
		return out
	}
	return v
}
