package choice

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/membot/membot/agent/modes"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
)

// conversation is a conversation's stored model or mode with every switch
// recorded, as memory keeps them (model_switches, mode_switches).
type conversation struct {
	current  string
	switches []switched
	err      error
}

type switched struct{ to, reason string }

func (c *conversation) read() (string, error) { return c.current, c.err }

func (c *conversation) switchTo(to, reason string) (string, error) {
	if c.err != nil {
		return "", c.err
	}
	from := c.current
	c.current = to
	c.switches = append(c.switches, switched{to, reason})
	return from, nil
}

func (c *conversation) ConversationModel(context.Context, memory.Chat, int64) (string, error) {
	return c.read()
}

func (c *conversation) SwitchModel(_ context.Context, _ memory.Chat, _ int64, to, reason string) (string, error) {
	return c.switchTo(to, reason)
}

func (c *conversation) ConversationMode(context.Context, memory.Chat, int64) (string, error) {
	return c.read()
}

func (c *conversation) SwitchMode(_ context.Context, _ memory.Chat, _ int64, to, reason string) (string, error) {
	return c.switchTo(to, reason)
}

var asker = Asker{Chat: memory.Chat{ID: 5}, UserID: 5, Lang: "en"}

// setup is /model over three models with the conversation on current.
func setup(current string) (Models, *conversation) {
	c := &conversation{current: current}
	return Models{Names: []string{"gpt-main", "Claude-Big", "llama"}, Store: c}, c
}

func TestModelCommand(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	cases := []struct {
		name, current, arg, want string
		stored                   []switched
	}{
		{"to another", "", "claude-big", en.ModelSwitched("Claude-Big"), []switched{{"Claude-Big", memory.SwitchByCommand}}},
		{"to the default, stored as none", "llama", " GPT-MAIN ", en.ModelSwitched("gpt-main"), []switched{{"", memory.SwitchByCommand}}},
		{"to the one it is on", "llama", "llama", en.ModelAlready("llama"), []switched{{"llama", memory.SwitchByCommand}}},
		{"to the default it is on", "", "gpt-main", en.ModelAlready("gpt-main"), []switched{{"", memory.SwitchByCommand}}},
		{"from one no longer configured to the default", "gone-model", "gpt-main", en.ModelAlready("gpt-main"), []switched{{"", memory.SwitchByCommand}}},
		{"unknown", "", "gpt-9", en.ModelUnknown("gpt-9"), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m, conv := setup(c.current)
			got, err := m.Command(context.Background(), asker, c.arg)
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != c.want || got.Buttons != nil {
				t.Errorf("Command(%q) = %+v, want %q without buttons", c.arg, got, c.want)
			}
			if fmt.Sprint(conv.switches) != fmt.Sprint(c.stored) {
				t.Errorf("switches stored %v, want %v", conv.switches, c.stored)
			}
		})
	}
}

func TestModelListMarksTheCurrentOne(t *testing.T) {
	t.Parallel()
	for current, marked := range map[string]string{"": "gpt-main", "llama": "llama", "gone-model": "gpt-main"} {
		m, conv := setup(current)
		got, err := m.Command(context.Background(), asker, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Buttons) != 3 || len(conv.switches) != 0 {
			t.Fatalf("%q: %d rows of buttons and switches %v; want 3 and none", current, len(got.Buttons), conv.switches)
		}
		for i, n := range m.Names {
			b := got.Buttons[i][0]
			wantText, wantLine := n, "• "+n
			if n == marked {
				wantText, wantLine = "✓ "+n, "✓ "+n
			}
			if b.Text != wantText || b.Data != fmt.Sprintf("model:%d", i) {
				t.Errorf("%q: button %d = %+v, want %q model:%d", current, i, b, wantText, i)
			}
			if !strings.Contains(got.Text, "\n"+wantLine) {
				t.Errorf("%q: list %q lacks the line %q", current, got.Text, wantLine)
			}
		}
		if strings.Count(got.Text, "\n✓") != 1 {
			t.Errorf("%q: list %q marks other than one model", current, got.Text)
		}
	}
}

func TestWithOneModelThereIsNothingToChoose(t *testing.T) {
	t.Parallel()
	c := &conversation{}
	got, err := Models{Names: []string{"only"}, Store: c}.Command(context.Background(), asker, "other")
	if err != nil || got.Text != texts.For("en").ModelOnlyOne("only") || len(c.switches) != 0 {
		t.Errorf("Command = %+v, %v, switches %v; want ModelOnlyOne and none", got, err, c.switches)
	}
}

func TestModelPress(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	m, conv := setup("")
	got, err := m.Press(context.Background(), asker, "2")
	if err != nil {
		t.Fatal(err)
	}
	if got.Notice != en.ModelSwitchedShort("llama") || got.List == nil || got.List.Buttons[2][0].Text != "✓ llama" {
		t.Errorf("Press(2) = %+v, want llama switched and marked", got)
	}
	if fmt.Sprint(conv.switches) != fmt.Sprint([]switched{{"llama", memory.SwitchByButton}}) {
		t.Errorf("switches %v, want one to llama by button", conv.switches)
	}
	for _, arg := range []string{"3", "-1", "x", ""} {
		got, err := m.Press(context.Background(), asker, arg)
		if err != nil || got.List != nil || got.Notice != en.ModelUnknown(arg) {
			t.Errorf("Press(%q) = %+v, %v; want ModelUnknown", arg, got, err)
		}
	}
	if len(conv.switches) != 1 {
		t.Errorf("unknown presses stored switches: %v", conv.switches)
	}
}

func TestModeCommandAndPress(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	conv := &conversation{current: modes.Default}
	m := Modes{Store: conv}
	cases := []struct{ arg, want string }{
		{" Concise ", en.ModeSwitched("concise")},
		{"concise", en.ModeAlready("concise")},
		{"pirate", en.ModeUnknown("pirate")},
	}
	for _, c := range cases {
		got, err := m.Command(context.Background(), asker, c.arg)
		if err != nil || got.Text != c.want {
			t.Errorf("Command(%q) = %+v, %v; want %q", c.arg, got, err, c.want)
		}
	}
	got, err := m.Press(context.Background(), asker, "coder")
	if err != nil || got.Notice != en.ModeSwitchedShort("coder") || got.List == nil {
		t.Fatalf("Press(coder) = %+v, %v", got, err)
	}
	if got, _ := m.Press(context.Background(), asker, "pirate"); got.List != nil || got.Notice != en.ModeUnknown("pirate") {
		t.Errorf("Press(pirate) = %+v, want ModeUnknown", got)
	}
	want := []switched{{"concise", memory.SwitchByCommand}, {"concise", memory.SwitchByCommand}, {"coder", memory.SwitchByButton}}
	if fmt.Sprint(conv.switches) != fmt.Sprint(want) {
		t.Errorf("switches %v, want %v", conv.switches, want)
	}
	list, err := m.Command(context.Background(), asker, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(list.Text, "✓ coder — "+en.Mode["coder"]) || strings.Count(list.Text, "\n✓") != 1 {
		t.Errorf("list %q does not mark coder alone, with its description", list.Text)
	}
	if len(list.Buttons) != 4 || list.Buttons[3][0].Data != "mode:coder" || list.Buttons[3][0].Text != "✓ coder" {
		t.Errorf("buttons %+v, want four with coder marked", list.Buttons)
	}
}

func TestAModesFilesModeIsListedWithItsDescription(t *testing.T) {
	t.Parallel()
	set, err := modes.New("base", []modes.Mode{{Name: "poet", Description: "answers in verse", Prompt: "rhyme"}})
	if err != nil {
		t.Fatal(err)
	}
	conv := &conversation{current: "poet"}
	got, err := Modes{Modes: set, Store: conv}.Command(context.Background(), Asker{Lang: "ru"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.Text, texts.For("ru").ModeList) || !strings.Contains(got.Text, "✓ poet — answers in verse") {
		t.Errorf("list %q lacks the marked mode of the file", got.Text)
	}
}

func TestADatabaseFailureIsAnError(t *testing.T) {
	t.Parallel()
	away := errors.New("database away")
	m, conv := setup("")
	conv.err = away
	md := Modes{Store: conv}
	for name, call := range map[string]func() error{
		"model list":   func() error { _, err := m.Command(context.Background(), asker, ""); return err },
		"model switch": func() error { _, err := m.Command(context.Background(), asker, "llama"); return err },
		"model press":  func() error { _, err := m.Press(context.Background(), asker, "1"); return err },
		"mode list":    func() error { _, err := md.Command(context.Background(), asker, ""); return err },
		"mode switch":  func() error { _, err := md.Command(context.Background(), asker, "coder"); return err },
		"mode press":   func() error { _, err := md.Press(context.Background(), asker, "coder"); return err },
	} {
		if err := call(); !errors.Is(err, away) {
			t.Errorf("%s: %v, want the store's error", name, err)
		}
	}
}

// /model without a name lists the models, the conversation's marked, with
// a button each; the first is the default (OPENAI_MODEL).
func ExampleModels_Command() {
	m, _ := setup("llama")
	answer, _ := m.Command(context.Background(), asker, "")
	fmt.Println(answer.Text)
	for _, row := range answer.Buttons {
		fmt.Printf("[%s] -> %s\n", row[0].Text, row[0].Data)
	}
	// Output:
	// Models (✓ answers in this chat). Tap one, or send /model NAME:
	//
	// • gpt-main
	// • Claude-Big
	// ✓ llama
	// [gpt-main] -> model:0
	// [Claude-Big] -> model:1
	// [✓ llama] -> model:2
}
