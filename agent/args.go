package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// maxArgumentBytes bounds one tool call's arguments, like its result.
const maxArgumentBytes = 16 << 10

// maxArgumentDepth bounds how deeply the arguments nest.
const maxArgumentDepth = 64

// CanonicalArgs is the one form in which a tool call's arguments are
// stored, shown for approval and run: raw ("" standing for {}) parsed once
// and written again compact, keys in the model's order, every string in
// encoding/json's escaping, numbers as written. Anything but one JSON
// object within maxArgumentBytes, or an object anywhere in it holding a
// key twice, is an error: with a duplicate, one reader (a person, a
// jsonb copy) would take one value and another (the tool) the other. It
// is idempotent: the canonical form of canonical arguments is themselves.
func CanonicalArgs(raw string) (string, error) {
	if strings.TrimSpace(raw) == "" {
		return "{}", nil
	}
	if len(raw) > maxArgumentBytes {
		return "", fmt.Errorf("the arguments are longer than %d bytes", maxArgumentBytes)
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var out, scratch bytes.Buffer
	// Strings are escaped as encoding/json escapes them, without HTML
	// escaping: the MCP client sends them as they are.
	strs := json.NewEncoder(&scratch)
	strs.SetEscapeHTML(false)
	writeString := func(s string) {
		scratch.Reset()
		_ = strs.Encode(s) // a string always encodes
		out.Write(bytes.TrimSuffix(scratch.Bytes(), []byte("\n")))
	}
	var stack []*level // the objects and arrays open at the token read
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) && len(stack) == 0 && out.Len() > 0 {
			return out.String(), nil
		}
		if err != nil {
			return "", fmt.Errorf("the arguments are not valid JSON: %w", err)
		}
		if len(stack) == 0 && out.Len() > 0 {
			return "", errors.New("the arguments are not valid JSON: something follows the object")
		}
		if len(stack) == 0 && tok != json.Delim('{') {
			return "", errors.New("the arguments are not a JSON object")
		}
		var top *level
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if delim, ok := tok.(json.Delim); ok && (delim == '}' || delim == ']') {
			out.WriteByte(byte(delim))
			stack = stack[:len(stack)-1]
			continue
		}
		switch {
		case top == nil:
		case top.keys != nil && top.wantKey: // tok is a key (Token only gives strings here)
			key := tok.(string)
			if _, twice := top.keys[key]; twice {
				return "", fmt.Errorf("the key %s comes twice%s; each key must come once", strconv.Quote(key), top.where())
			}
			top.keys[key] = struct{}{}
			if len(top.keys) > 1 {
				out.WriteByte(',')
			}
			writeString(key)
			out.WriteByte(':')
			top.wantKey, top.key = false, key
			continue
		case top.keys != nil: // a value of top's key
			top.wantKey = true
		default: // an element of the array top
			if top.n > 0 {
				out.WriteByte(',')
			}
			top.n++
		}
		switch v := tok.(type) {
		case json.Delim: // '{' or '['
			if len(stack) == maxArgumentDepth {
				return "", fmt.Errorf("the arguments nest deeper than %d levels", maxArgumentDepth)
			}
			l := &level{parent: top, wantKey: true}
			if v == '{' {
				l.keys = map[string]struct{}{}
			}
			stack = append(stack, l)
			out.WriteByte(byte(v))
		case string:
			writeString(v)
		case json.Number:
			out.WriteString(v.String())
		case bool:
			out.WriteString(strconv.FormatBool(v))
		case nil:
			out.WriteString("null")
		}
	}
}

// level is an object or array open while CanonicalArgs reads.
type level struct {
	parent  *level
	keys    map[string]struct{} // an object's keys so far; nil for an array
	wantKey bool                // an object's next token is a key
	key     string              // an object's key whose value is read
	n       int                 // an array's elements so far
}

// where says in which value of the arguments the level is, for an error:
// "" at the top, " in cc.to" or " in cc[2]" below.
func (l *level) where() string {
	var path []string // innermost first
	for p := l.parent; p != nil; p = p.parent {
		if p.keys != nil {
			path = append(path, "."+p.key)
		} else {
			path = append(path, fmt.Sprintf("[%d]", p.n-1))
		}
	}
	if len(path) == 0 {
		return ""
	}
	slices.Reverse(path)
	return " in " + strings.TrimPrefix(strings.Join(path, ""), ".")
}

// DecodeArgs decodes a tool call's arguments strictly into v, a tool's own
// argument type: canonical (CanonicalArgs: one JSON object within
// maxArgumentBytes, no key twice at any depth), no field v does not have.
func DecodeArgs(raw json.RawMessage, v any) error {
	canonical, err := CanonicalArgs(string(raw))
	if err != nil {
		return fmt.Errorf("bad arguments: %w", err)
	}
	dec := json.NewDecoder(strings.NewReader(canonical))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("bad arguments: %w", err)
	}
	return nil
}

// Arg is one top-level field of a call's arguments, as a person is shown
// it: a string's value decoded, any other value as its JSON.
type Arg struct{ Key, Value string }

// Args returns the top-level fields of the arguments, in their order. It
// needs no schema: a call is shown even when its tool is not offered.
func Args(arguments string) ([]Arg, error) {
	canonical, err := CanonicalArgs(arguments)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(canonical))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // the '{'
		return nil, err
	}
	var args []Arg
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		a := Arg{Key: tok.(string), Value: string(value)}
		var s string
		if json.Unmarshal(value, &s) == nil {
			a.Value = s
		}
		args = append(args, a)
	}
	return args, nil
}
