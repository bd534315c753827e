package texts

import "testing"

func TestPluralFormsInBothLanguages(t *testing.T) {
	for _, c := range []struct {
		n    any
		want string
	}{{1, "1 fact"}, {0, "0 facts"}, {2, "2 facts"}, {int64(11), "11 facts"}} {
		if got := plural(c.n, "fact", "facts"); got != c.want {
			t.Errorf("plural(%v) = %q, want %q", c.n, got, c.want)
		}
	}
	for n, want := range map[int]string{1: "1 вызов", 2: "2 вызова", 4: "4 вызова", 5: "5 вызовов", 11: "11 вызовов",
		12: "12 вызовов", 14: "14 вызовов", 21: "21 вызов", 22: "22 вызова", 62: "62 вызова", 100: "100 вызовов", 111: "111 вызовов", 0: "0 вызовов"} {
		if got := plural(n, "вызов", "вызова", "вызовов"); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
}
