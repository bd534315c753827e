package memory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// PostgreSQL refuses a NUL byte in text, invalid UTF-8 anywhere, and in
// jsonb also the escapes \u0000 and lone UTF-16 surrogates. Text from
// outside (Telegram, the model, a tool) may hold any of them, so everything
// is cleaned on its way in: a stray byte must never fail a turn or stall the
// inbox. NUL is dropped; invalid bytes become U+FFFD.

// cleanText makes s storable in a text column.
func cleanText(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// storable is text made storable, with the store's secrets taken out.
func (s *Store) storable(text string) string { return cleanText(s.secrets.Load().String(text)) }

// storableValue is cleanValue with the store's secrets taken out of every string.
func (s *Store) storableValue(v any) any { return eachString(v, s.storable) }

// suspectEscape finds the JSON escapes jsonb refuses: \u0000 and surrogates
// (valid pairs match too; re-encoding them changes nothing that matters).
var suspectEscape = regexp.MustCompile(`\\u(0000|[dD][89abAB][0-9a-fA-F]{2})`)

// cleanJSON makes a JSON document storable in a jsonb column. Clean
// documents, nearly all of them, are returned untouched.
func cleanJSON(raw []byte) ([]byte, error) {
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
func cleanValue(v any) any { return eachString(v, cleanText) }

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
