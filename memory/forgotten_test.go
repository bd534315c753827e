package memory_test

import (
	"strings"
	"testing"

	"github.com/membot/membot/memory"
)

// A tombstone knows its fact said again, in other sentences, and keeps
// none of its words readable.
func TestATombstoneKnowsItsFactSaidAgain(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		fact, text string
		stated     bool
	}{
		{"Bank PIN is 4321", "Your bank PIN is 4321.", true},
		{"Bank PIN is 4321", "the code: 4321", true},          // the digits are the secret
		{"Bank PIN is 4321", "Your bank PIN is safe.", false}, // the topic alone is not the fact
		{"Bank PIN is 4321", "room 43210", false},
		{"Locker code is 4711-ZEBRA", "[Текущее время: 2026-01-01 10:00] my locker: 4711-zebra", true},
		{"Works as a software engineer at Yandex", "a Software Engineer, at YANDEX", true},
		{"Works as a software engineer at Yandex", "Yandex has a new logo", false}, // 1 of 3 key words
		{"Живёт в Казани", "ты живешь в Казани", true},
		{"Lives in Kazan", "she works a lot", false},
	} {
		tomb, ok := memory.Bury(c.fact)
		if !ok {
			t.Fatalf("%q left no tombstone", c.fact)
		}
		if got := memory.Stated([]memory.Tombstone{tomb}, c.text); got != c.stated {
			t.Errorf("%q states %q: %v, want %v", c.text, c.fact, got, c.stated)
		}
		for _, term := range tomb.Terms {
			for _, w := range strings.Fields(strings.ToLower(c.fact)) {
				if strings.Contains(term, w) && len(w) > 2 {
					t.Errorf("the tombstone of %q holds %q readable", c.fact, w)
				}
			}
		}
	}
	if _, ok := memory.Bury("Is a user"); ok {
		t.Error("a fact of common words only left a tombstone")
	}
}
