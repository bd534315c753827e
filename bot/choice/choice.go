// Package choice is what a chat is answered with: /model and /mode, the
// conversation's model or mode listed with a button each (the current one
// marked) and switched by name or by a button, and /voice, whether answers
// are spoken too. memory records every switch (model_switches,
// mode_switches); /new keeps the model. bot routes the commands and the
// presses to Commands.
package choice

import (
	"context"
	"strconv"
	"strings"

	"github.com/membot/membot/agent/modes"
	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
)

// ModelStore is the memory /model reads and changes.
type ModelStore interface {
	ConversationModel(ctx context.Context, chat memory.Chat, userID int64) (string, error)
	SwitchModel(ctx context.Context, chat memory.Chat, userID int64, to, reason string) (string, error)
}

// ModeStore is the memory /mode reads and changes.
type ModeStore interface {
	ConversationMode(ctx context.Context, chat memory.Chat, userID int64) (string, error)
	SwitchMode(ctx context.Context, chat memory.Chat, userID int64, to, reason string) (string, error)
}

// Asker is who asks, and where: the conversation (chat and topic) and the
// user, in their language.
type Asker struct {
	Chat   memory.Chat
	UserID int64
	Lang   string
}

// Answer is what the bot sends: a text, with a row of buttons per choice
// when it is the list.
type Answer struct {
	Text    string
	Buttons [][]telegram.Button
}

// Pressed is what a press on a list's button comes to: the list as it is
// now (nil when the choice was unknown), and the short notice the press
// is answered with.
type Pressed struct {
	List   *Answer
	Notice string
}

// Models are the models /model offers, the default first (MODELS).
type Models struct {
	Names []string
	Store ModelStore
}

// Command answers /model: with no name, the list of models; with one, the
// conversation switched to it.
func (m Models) Command(ctx context.Context, a Asker, arg string) (Answer, error) {
	t := texts.For(a.Lang)
	if len(m.Names) < 2 {
		return Answer{Text: t.ModelOnlyOne(strings.Join(m.Names, ""))}, nil
	}
	name := strings.TrimSpace(arg)
	if name == "" {
		current, err := m.Store.ConversationModel(ctx, a.Chat, a.UserID)
		if err != nil {
			return Answer{}, err
		}
		return m.list(a.Lang, current), nil
	}
	i := m.index(name)
	if i < 0 {
		return Answer{Text: t.ModelUnknown(name)}, nil
	}
	from, err := m.switchTo(ctx, a, i, memory.SwitchByCommand)
	if err != nil {
		return Answer{}, err
	}
	if m.shown(from) == i {
		return Answer{Text: t.ModelAlready(m.Names[i])}, nil
	}
	return Answer{Text: t.ModelSwitched(m.Names[i])}, nil
}

// Press switches to the model of the pressed button (arg, its index in
// Names: a name may be longer than callback data allows) and marks it.
func (m Models) Press(ctx context.Context, a Asker, arg string) (Pressed, error) {
	t := texts.For(a.Lang)
	i, err := strconv.Atoi(arg)
	if err != nil || i < 0 || i >= len(m.Names) {
		return Pressed{Notice: t.ModelUnknown(arg)}, nil
	}
	if _, err := m.switchTo(ctx, a, i, memory.SwitchByButton); err != nil {
		return Pressed{}, err
	}
	list := m.list(a.Lang, m.Names[i])
	return Pressed{List: &list, Notice: t.ModelSwitchedShort(m.Names[i])}, nil
}

// switchTo makes Names[i] the conversation's model; the default (the
// first) is stored as "", so that a conversation follows OPENAI_MODEL.
func (m Models) switchTo(ctx context.Context, a Asker, i int, reason string) (string, error) {
	to := m.Names[i]
	if i == 0 {
		to = ""
	}
	return m.Store.SwitchModel(ctx, a.Chat, a.UserID, to, reason)
}

// index is the index of the model named name in Names, or -1.
func (m Models) index(name string) int {
	for i, n := range m.Names {
		if strings.EqualFold(n, name) {
			return i
		}
	}
	return -1
}

// shown is the index in Names of a stored choice: the default's for ""
// or a model no longer configured.
func (m Models) shown(stored string) int {
	if i := m.index(stored); i >= 0 {
		return i
	}
	return 0
}

// list is the list of models with the chat's marked, and a button for each.
func (m Models) list(lang, current string) Answer {
	lines := []string{texts.For(lang).ModelList, ""}
	var rows [][]telegram.Button
	cur := m.shown(current)
	for i, n := range m.Names {
		mark, label := "•", n
		if i == cur {
			mark, label = "✓", "✓ "+n
		}
		lines = append(lines, mark+" "+n)
		rows = append(rows, []telegram.Button{{Text: label, Data: "model:" + strconv.Itoa(i)}})
	}
	return Answer{Text: strings.Join(lines, "\n"), Buttons: rows}
}

// Modes are the assistant's modes /mode offers (the built-in ones when
// Modes is nil).
type Modes struct {
	Modes *modes.Set
	Store ModeStore
}

// builtinModes serve when Modes is nil.
var builtinModes, _ = modes.New("", nil)

func (m Modes) modes() *modes.Set {
	if m.Modes == nil {
		return builtinModes
	}
	return m.Modes
}

// Command answers /mode: with no name, the list of modes; with one, the
// conversation switched to it.
func (m Modes) Command(ctx context.Context, a Asker, arg string) (Answer, error) {
	t := texts.For(a.Lang)
	name := strings.ToLower(strings.TrimSpace(arg))
	if name == "" {
		current, err := m.Store.ConversationMode(ctx, a.Chat, a.UserID)
		if err != nil {
			return Answer{}, err
		}
		return m.list(a.Lang, current), nil
	}
	if _, ok := m.modes().Lookup(name); !ok {
		return Answer{Text: t.ModeUnknown(name)}, nil
	}
	from, err := m.Store.SwitchMode(ctx, a.Chat, a.UserID, name, memory.SwitchByCommand)
	if err != nil {
		return Answer{}, err
	}
	if from == name {
		return Answer{Text: t.ModeAlready(name)}, nil
	}
	return Answer{Text: t.ModeSwitched(name)}, nil
}

// Press switches to the mode of the pressed button and marks it in the list.
func (m Modes) Press(ctx context.Context, a Asker, name string) (Pressed, error) {
	t := texts.For(a.Lang)
	if _, ok := m.modes().Lookup(name); !ok {
		return Pressed{Notice: t.ModeUnknown(name)}, nil
	}
	if _, err := m.Store.SwitchMode(ctx, a.Chat, a.UserID, name, memory.SwitchByButton); err != nil {
		return Pressed{}, err
	}
	list := m.list(a.Lang, name)
	return Pressed{List: &list, Notice: t.ModeSwitchedShort(name)}, nil
}

// list is the list of modes with the current one marked, and a button for
// each.
func (m Modes) list(lang, current string) Answer {
	lines := []string{texts.For(lang).ModeList, ""}
	var rows [][]telegram.Button
	for _, md := range m.modes().List() {
		mark, label := "•", md.Name
		if md.Name == current {
			mark, label = "✓", "✓ "+md.Name
		}
		line := mark + " " + md.Name
		if d := describe(lang, md); d != "" {
			line += " — " + d
		}
		lines = append(lines, line)
		rows = append(rows, []telegram.Button{{Text: label, Data: "mode:" + md.Name}})
	}
	return Answer{Text: strings.Join(lines, "\n"), Buttons: rows}
}

// describe is a mode's one-line description: the modes file's, else the
// bot's own for a built-in mode.
func describe(lang string, m modes.Mode) string {
	if m.Description != "" {
		return m.Description
	}
	return texts.For(lang).Mode[m.Name]
}

// VoiceStore keeps whether a chat's answers are also spoken (/voice).
type VoiceStore interface {
	ToggleVoiceReplies(ctx context.Context, chatID int64) (bool, error)
}

// Speaker tells whether answers can be said aloud (a speech model is set).
type Speaker interface {
	CanSpeak() bool
}

// Commands are /model, /mode and /voice, and the presses on the lists of
// models and modes.
type Commands struct {
	Models  Models
	Modes   Modes
	Voice   VoiceStore
	Speaker Speaker
}

// askerOf is who asks in c.
func askerOf(c command.Call) Asker {
	return Asker{Chat: c.Chat, UserID: c.UserID(), Lang: c.Lang()}
}

// Model answers /model: the list of models, or a switch by name.
func (m Commands) Model(ctx context.Context, c command.Call) error {
	return answer(ctx, c)(m.Models.Command(ctx, askerOf(c), c.Args))
}

// Mode answers /mode: the list of modes, or a switch by name.
func (m Commands) Mode(ctx context.Context, c command.Call) error {
	return answer(ctx, c)(m.Modes.Command(ctx, askerOf(c), c.Args))
}

// PressModel switches to the model of a button on /model's list.
func (m Commands) PressModel(ctx context.Context, c command.Call) error {
	return pressed(ctx, c)(m.Models.Press(ctx, askerOf(c), c.Args))
}

// PressMode switches to the mode of a button on /mode's list.
func (m Commands) PressMode(ctx context.Context, c command.Call) error {
	return pressed(ctx, c)(m.Modes.Press(ctx, askerOf(c), c.Args))
}

// VoiceReplies answers /voice: the chat's answers are spoken too from now
// on (each sent as a voice message after its text), or no longer.
func (m Commands) VoiceReplies(ctx context.Context, c command.Call) error {
	t := texts.For(c.Lang())
	if !m.Speaker.CanSpeak() {
		return c.Reply(ctx, t.VoiceUnavailable)
	}
	on, err := m.Voice.ToggleVoiceReplies(ctx, c.Chat.ID)
	if err != nil {
		return err
	}
	if on {
		return c.Reply(ctx, t.VoiceRepliesOn)
	}
	return c.Reply(ctx, t.VoiceRepliesOff)
}

// answer sends a command's answer, unless it failed.
func answer(ctx context.Context, c command.Call) func(a Answer, err error) error {
	return func(a Answer, err error) error {
		if err != nil {
			return err
		}
		return c.Reply(ctx, a.Text, a.Buttons...)
	}
}

// pressed shows a press, unless it failed: the list edited to mark the
// new choice, and the press answered.
func pressed(ctx context.Context, c command.Call) func(p Pressed, err error) error {
	return func(p Pressed, err error) error {
		if err != nil {
			return err
		}
		if p.List != nil {
			c.Edit(ctx, p.List.Text, p.List.Buttons...)
		}
		c.Notify(ctx, p.Notice)
		return nil
	}
}
