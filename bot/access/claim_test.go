package access

import (
	"strings"
	"testing"
)

// A claim code is CodeLength characters of the unambiguous alphabet, a new
// one each time; what a person types matches it in any case, with spaces
// or dashes, and nothing else does.
func TestClaimCodes(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		code := NewCode()
		if len(code) != CodeLength || strings.Trim(code, CodeAlphabet) != "" || seen[code] {
			t.Fatalf("code %q: want %d new characters of %s", code, CodeLength, CodeAlphabet)
		}
		seen[code] = true
	}
	for _, c := range "0O1IL" {
		if strings.ContainsRune(CodeAlphabet, c) {
			t.Errorf("the alphabet has the ambiguous %q", c)
		}
	}
	code := "K7PXM2QH9A"
	for sent, want := range map[string]bool{code: true, "k7pxm2qh9a": true, " K7PX-M2QH 9A ": true,
		"K7PXM2QH9B": false, "K7PXM2QH9": false, "": false} {
		if SameCode(sent, code) != want {
			t.Errorf("SameCode(%q) = %v", sent, !want)
		}
	}
	if SameCode("", "") {
		t.Error("an empty code matched")
	}
	if got := ClaimLink("my_bot", code); got != "https://t.me/my_bot?start=K7PXM2QH9A" {
		t.Errorf("link %q", got)
	}
}

// An allowlist wins; without one, ACCESS=open serves anyone and anything
// else serves the owner, the admins and the owners seen.
func TestModeAndAllows(t *testing.T) {
	owners := &Owners{}
	p := Policy{Admins: map[int64]bool{1: true}, Owners: owners}
	if p.Mode() != Owner || p.Allows(5, 5) || !p.Allows(1, 7) {
		t.Fatalf("default: mode %s, a stranger allowed %v", p.Mode(), p.Allows(5, 5))
	}
	owners.Add(5)
	if !p.Allows(5, -100) || !p.IsAdmin(5) {
		t.Error("an owner seen is not an admin")
	}
	p.Access = "open"
	if p.Mode() != Open || !p.Allows(9, 9) {
		t.Error("ACCESS=open does not serve anyone")
	}
	p.AllowedUsers = map[int64]bool{9: true}
	if p.Mode() != Allowlist || !p.Allows(9, 9) || p.Allows(8, 8) {
		t.Error("an allowlist does not win over ACCESS=open")
	}
	var none *Owners
	if none.Has(1) {
		t.Error("a nil set knows an owner")
	}
	none.Add(1) // no panic
}
