package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// maxArgumentBytes bounds one tool call's arguments, like its result.
const maxArgumentBytes = 16 << 10

// DecodeArgs decodes a tool call's arguments strictly into v, a tool's own
// argument type: one JSON object within maxArgumentBytes, no field v does
// not have, no key twice (a duplicate could show one value to the person
// approving and hand the tool another), nothing after it.
func DecodeArgs(raw json.RawMessage, v any) error {
	if len(raw) > maxArgumentBytes {
		return fmt.Errorf("bad arguments: longer than %d bytes", maxArgumentBytes)
	}
	if _, err := objectKeys(raw); err != nil {
		return fmt.Errorf("bad arguments: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("bad arguments: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("bad arguments: something follows the object")
	}
	return nil
}

// objectKeys returns the keys of the JSON object raw, in order, and fails
// on anything but an object or on a key that comes twice.
func objectKeys(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		if slices.Contains(keys, key) {
			return nil, fmt.Errorf("the key %q comes twice", key)
		}
		keys = append(keys, key)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// maxApprovalText bounds what a person is shown to approve: a call whose
// description is longer is refused rather than shown cut.
const maxApprovalText = 3000

// describeArgs shows the arguments of a tool that has no Describe of its
// own, for a person to approve: every key and its whole value, in the
// order the model gave them.
func describeArgs(raw json.RawMessage) (string, error) {
	keys, err := objectKeys(raw)
	if err != nil {
		return "", fmt.Errorf("bad arguments: %w", err)
	}
	var values map[string]json.RawMessage
	if err := json.Unmarshal(raw, &values); err != nil {
		return "", fmt.Errorf("bad arguments: %w", err)
	}
	var b strings.Builder
	for _, k := range keys {
		v := string(values[k])
		var s string
		if json.Unmarshal(values[k], &s) == nil {
			v = s
		}
		fmt.Fprintf(&b, "%s: %s\n", k, v)
	}
	return strings.TrimSpace(b.String()), nil
}
