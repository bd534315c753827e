package choice

import (
	"context"
	"errors"
	"testing"

	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/testing/calltest"
)

func TestCommandsAnswerWithTheListOrTheSwitch(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	models, _ := setup("")
	cases := []struct {
		name string
		do   func(Commands) func(context.Context, command.Call) error
		args string
		want string
		rows int
	}{
		{"/model lists the models", func(m Commands) func(context.Context, command.Call) error { return m.Model }, "", "", 3},
		{"/model llama switches", func(m Commands) func(context.Context, command.Call) error { return m.Model }, "llama", en.ModelSwitched("llama"), 0},
		{"/mode lists the modes", func(m Commands) func(context.Context, command.Call) error { return m.Mode }, "", "", len(builtinModes.List())},
		{"/mode nosuch is unknown", func(m Commands) func(context.Context, command.Call) error { return m.Mode }, "nosuch", en.ModeUnknown("nosuch"), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conv := &conversation{}
			m := Commands{Models: Models{Names: models.Names, Store: conv}, Modes: Modes{Store: conv}}
			r := &calltest.Recorder{}
			if err := c.do(m)(context.Background(), r.Call(c.args)); err != nil {
				t.Fatal(err)
			}
			if len(r.Replies) != 1 {
				t.Fatalf("replies = %q, want one", r.Texts())
			}
			if c.want != "" && r.Last() != c.want {
				t.Errorf("reply = %q, want %q", r.Last(), c.want)
			}
			if got := len(r.Replies[0].Buttons); got != c.rows {
				t.Errorf("%d rows of buttons, want %d", got, c.rows)
			}
		})
	}
}

func TestAPressEditsTheListAndAnswersThePress(t *testing.T) {
	t.Parallel()
	conv := &conversation{}
	m := Commands{Models: Models{Names: []string{"a", "b"}, Store: conv}, Modes: Modes{Store: conv}}
	r := &calltest.Recorder{}
	if err := m.PressModel(context.Background(), r.Call("1")); err != nil {
		t.Fatal(err)
	}
	if conv.current != "b" || len(r.Edits) != 1 || r.Edits[0].Buttons[1][0].Text != "✓ b" {
		t.Errorf("model %q, edits %+v: want b marked", conv.current, r.Edits)
	}
	if want := texts.For("en").ModelSwitchedShort("b"); len(r.Notices) != 1 || r.Notices[0] != want {
		t.Errorf("notices = %q, want %q", r.Notices, want)
	}

	// an unknown choice: the press is answered, the list left as it is
	r = &calltest.Recorder{}
	if err := m.PressMode(context.Background(), r.Call("nosuch")); err != nil {
		t.Fatal(err)
	}
	if len(r.Edits) != 0 || len(r.Notices) != 1 || r.Notices[0] != texts.For("en").ModeUnknown("nosuch") {
		t.Errorf("edits %+v, notices %q: want the press answered only", r.Edits, r.Notices)
	}

	// the database fails: an error, and no answer (the update is retried)
	conv.err = errors.New("down")
	r = &calltest.Recorder{}
	if err := m.PressModel(context.Background(), r.Call("0")); err == nil || len(r.Notices)+len(r.Edits) != 0 {
		t.Errorf("err %v, notices %q, edits %+v: want the error only", err, r.Notices, r.Edits)
	}
}

type voices struct {
	on  bool
	err error
}

func (v *voices) ToggleVoiceReplies(context.Context, int64) (bool, error) {
	v.on = !v.on
	return v.on, v.err
}

type speaker bool

func (s speaker) CanSpeak() bool { return bool(s) }

func TestVoiceTogglesSpokenAnswers(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	v := &voices{}
	m := Commands{Voice: v, Speaker: speaker(true)}
	r := &calltest.Recorder{}
	for range 2 {
		if err := m.VoiceReplies(context.Background(), r.Call("")); err != nil {
			t.Fatal(err)
		}
	}
	if got := r.Texts(); len(got) != 2 || got[0] != en.VoiceRepliesOn || got[1] != en.VoiceRepliesOff {
		t.Errorf("replies = %q, want on then off", got)
	}

	m.Speaker = speaker(false)
	if err := m.VoiceReplies(context.Background(), r.Call("")); err != nil || r.Last() != en.VoiceUnavailable || v.on {
		t.Errorf("without speech: %v, %q (on %v); want %q and nothing toggled", err, r.Last(), v.on, en.VoiceUnavailable)
	}

	m.Speaker, v.err = speaker(true), errors.New("down")
	if err := m.VoiceReplies(context.Background(), r.Call("")); err == nil {
		t.Error("a database failure is no error")
	}
}
