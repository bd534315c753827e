package facts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
)

// store keeps one user's facts in order, as memory numbers them.
type store struct {
	facts []memory.Fact
	err   error // every call fails with it when set
}

func (s *store) Facts(context.Context, int64) ([]memory.Fact, error) {
	return slices.Clone(s.facts), s.err
}

func (s *store) ForgetFactNumber(_ context.Context, _ int64, n int) (*memory.Fact, error) {
	if s.err != nil {
		return nil, s.err
	}
	if n < 1 || n > len(s.facts) {
		return nil, memory.ErrNotFound
	}
	f := s.facts[n-1]
	s.facts = slices.Delete(s.facts, n-1, n)
	return &f, nil
}

func (s *store) ForgetAllFacts(context.Context, int64) (int64, error) {
	n := int64(len(s.facts))
	if s.err != nil {
		return 0, s.err
	}
	s.facts = nil
	return n, nil
}

func setup(contents ...string) *store {
	s := &store{}
	for i, c := range contents {
		s.facts = append(s.facts, memory.Fact{ID: int64(10 + i), Content: c})
	}
	return s
}

func TestListNumbersTheFactsInOrder(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "ru"} {
		got, err := List(context.Background(), setup("likes tea", "lives in Riga"), 1, lang)
		if err != nil {
			t.Fatal(err)
		}
		if want := texts.For(lang).MemoryList("1. likes tea\n2. lives in Riga"); got != want {
			t.Errorf("%s: List = %q, want %q", lang, got, want)
		}
		empty, err := List(context.Background(), setup(), 1, lang)
		if err != nil || empty != texts.For(lang).MemoryEmpty {
			t.Errorf("%s: List of none = %q, %v; want %q", lang, empty, err, texts.For(lang).MemoryEmpty)
		}
	}
}

func TestForget(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	cases := []struct {
		name    string
		facts   []string
		numbers []int
		all, ok bool
		want    string
		left    int
	}{
		{"one by number", []string{"a", "b", "c"}, []int{2}, false, true, en.Forgotten("b"), 2},
		{"a number past the list", []string{"a"}, []int{5}, false, true, en.ForgetNoSuch(5), 1},
		{"no number", []string{"a"}, nil, false, true, en.ForgetUsage, 1},
		{"two numbers", []string{"a", "b"}, []int{1, 2}, false, true, en.ForgetUsage, 2},
		{"not numbers", []string{"a"}, []int{1}, false, false, en.ForgetUsage, 1},
		{"all", []string{"a", "b"}, nil, true, true, en.ForgotAll(2), 0},
		{"all of none", nil, nil, true, true, en.ForgetNone, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := setup(c.facts...)
			numbers := c.numbers
			if !c.ok { // arguments that were no numbers: none read
				numbers = nil
			}
			got, err := Forget(context.Background(), s, 1, "en", numbers)
			if c.all {
				got, err = ForgetAll(context.Background(), s, 1, "en")
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("Forget = %q, want %q", got, c.want)
			}
			if len(s.facts) != c.left {
				t.Errorf("%d facts left, want %d", len(s.facts), c.left)
			}
		})
	}
}

func TestADatabaseFailureIsAnErrorNotAnAnswer(t *testing.T) {
	t.Parallel()
	away := errors.New("database away")
	s := &store{facts: []memory.Fact{{Content: "a"}}, err: away}
	if got, err := List(context.Background(), s, 1, "en"); !errors.Is(err, away) || got != "" {
		t.Errorf("List = %q, %v; want the error", got, err)
	}
	if got, err := Forget(context.Background(), s, 1, "en", []int{1}); !errors.Is(err, away) || got != "" {
		t.Errorf("Forget one = %q, %v; want the error", got, err)
	}
	if got, err := ForgetAll(context.Background(), s, 1, "en"); !errors.Is(err, away) || got != "" {
		t.Errorf("Forget all = %q, %v; want the error", got, err)
	}
}

// /memory lists the facts numbered; /forget takes a number from that list.
func Example() {
	s := setup("has a cat named Tom", "prefers short answers")
	list, _ := List(context.Background(), s, 42, "en")
	fmt.Println(list)
	answer, _ := Forget(context.Background(), s, 42, "en", []int{1})
	fmt.Println(answer)
	// Output:
	// What I remember about you, newest first:
	// 1. has a cat named Tom
	// 2. prefers short answers
	//
	// /forget N deletes one, /forget all deletes them all.
	// Forgotten: has a cat named Tom
}
