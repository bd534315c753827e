package command

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/membot/membot/bot/telegram"
)

func TestNumbers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args    string
		numbers []int
		all, ok bool
	}{
		{"2", []int{2}, false, true},
		{"1 3", []int{1, 3}, false, true},
		{"#2, 4", []int{2, 4}, false, true},
		{"all", nil, true, true},
		{"ВСЁ", nil, true, true},
		{"все", nil, true, true},
		{"", nil, false, false},
		{"0", nil, false, false},
		{"-1", nil, false, false},
		{"two", nil, false, false},
		{"1 all", nil, false, false},
	}
	for _, c := range cases {
		numbers, all, ok := Call{Args: c.args}.Numbers()
		if !slices.Equal(numbers, c.numbers) || all != c.all || ok != c.ok {
			t.Errorf("Numbers(%q) = %v, %v, %v; want %v, %v, %v", c.args, numbers, all, ok, c.numbers, c.all, c.ok)
		}
	}
}

func TestReplyWithRepliesUnlessTheLogicFailed(t *testing.T) {
	t.Parallel()
	var sent []string
	c := Call{Reply: func(_ context.Context, text string, _ ...[]telegram.Button) error {
		sent = append(sent, text)
		return nil
	}}
	failed := errors.New("the database is away")
	if err := c.ReplyWith(context.Background())("", failed); !errors.Is(err, failed) {
		t.Errorf("ReplyWith of a failure = %v, want it", err)
	}
	if err := c.ReplyWith(context.Background())("done", nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sent, []string{"done"}) {
		t.Errorf("sent %q, want only the answer", sent)
	}
}
