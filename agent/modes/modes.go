// Package modes holds the modes of the assistant: named personas whose
// instructions are added to the base system prompt, built in or read from
// a modes file (MODES_FILE).
package modes

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Default is the mode every conversation starts in.
const Default = "default"

// Mode is a named persona of the assistant: instructions added to the base
// system prompt, so the conventions it states (the time stamps, the tools)
// hold in every mode.
type Mode struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"` // one line, for the list of modes; the bot has its own for the built-ins
	Prompt      string `yaml:"prompt"`      // the mode's instructions
}

// builtinModes are always there; a modes file may add more or replace them.
var builtinModes = []Mode{
	{Name: Default},
	{Name: "concise", Prompt: "Mode: concise. Answer in as few words as will do: " +
		"one or two sentences, or a short list. No introductions, no summaries, no follow-up offers."},
	{Name: "translator", Prompt: "Mode: translator. Do not answer the user's messages: " +
		"translate them. Text in Russian goes into English; text in any other language goes into Russian, unless the user " +
		"names the target language. Reply with the translation only, keeping the tone, formatting and line breaks."},
	{Name: "coder", Prompt: "Mode: coder. You are a senior software engineer. " +
		"Give working code in fenced code blocks with the language named, explain only what is not obvious, " +
		"point out bugs and risks, and prefer the standard library and simple designs."},
}

// modeName is what a mode may be called: it is typed after /mode and fits
// in a button's callback data.
var modeName = regexp.MustCompile(`^[a-z0-9_]{1,32}$`)

// Set is the set of modes, in the order they are listed.
type Set struct {
	base string
	list []Mode
}

// New returns the built-in modes and then extra ones (from a modes
// file); an extra mode with a built-in's name replaces it.
func New(basePrompt string, extra []Mode) (*Set, error) {
	m := &Set{base: basePrompt, list: append([]Mode(nil), builtinModes...)}
	seen := map[string]bool{}
	for _, mode := range extra {
		mode.Name = strings.TrimSpace(mode.Name)
		switch {
		case !modeName.MatchString(mode.Name):
			return nil, fmt.Errorf("mode name %q: use 1 to 32 lowercase letters, digits or _", mode.Name)
		case seen[mode.Name]:
			return nil, fmt.Errorf("mode %q is defined twice", mode.Name)
		case strings.TrimSpace(mode.Prompt) == "" && mode.Name != Default:
			return nil, fmt.Errorf("mode %q has no prompt", mode.Name)
		}
		seen[mode.Name] = true
		if i := m.index(mode.Name); i >= 0 {
			m.list[i] = mode
		} else {
			m.list = append(m.list, mode)
		}
	}
	return m, nil
}

// List returns the modes in order.
func (m *Set) List() []Mode { return append([]Mode(nil), m.list...) }

// Lookup finds a mode by name.
func (m *Set) Lookup(name string) (Mode, bool) {
	if i := m.index(name); i >= 0 {
		return m.list[i], true
	}
	return Mode{}, false
}

// SystemPrompt is the system prompt of a mode. A mode that no longer exists
// (it was removed from the modes file) gets the default mode's.
func (m *Set) SystemPrompt(name string) string {
	mode, ok := m.Lookup(name)
	if !ok {
		mode, _ = m.Lookup(Default)
	}
	if strings.TrimSpace(mode.Prompt) == "" {
		return m.base
	}
	return m.base + "\n\n" + strings.TrimSpace(mode.Prompt)
}

func (m *Set) index(name string) int {
	for i, mode := range m.list {
		if mode.Name == name {
			return i
		}
	}
	return -1
}

// ReadFile reads modes from a YAML or JSON file of the form
//
//	modes:
//	  - name: pirate
//	    description: talks like a pirate
//	    prompt: Answer like a pirate would.
func ReadFile(path string) ([]Mode, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var file struct {
		Modes []Mode `yaml:"modes"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data)) // JSON is YAML too
	dec.KnownFields(true)                         // a misspelt key is an error, not a silent default
	if err := dec.Decode(&file); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if len(file.Modes) == 0 {
		return nil, fmt.Errorf("%s defines no modes (it needs a top-level \"modes\" list)", path)
	}
	return file.Modes, nil
}
