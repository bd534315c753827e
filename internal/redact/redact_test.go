package redact_test

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/membot/membot/internal/redact"
)

func TestErrorHidesEverySecretAndKeepsTheChain(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("calling https://x/bot123456:ABCDEF/getMe with key sk-secret-key: %w", io.ErrUnexpectedEOF)
	got := redact.Error(err, "<redacted>", "123456:ABCDEF", "sk-secret-key", "")
	if want := "calling https://x/bot<redacted>/getMe with key <redacted>: unexpected EOF"; got.Error() != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if !errors.Is(got, io.ErrUnexpectedEOF) {
		t.Fatal("the chain is lost")
	}
	if plain := errors.New("nothing secret"); redact.Error(plain, "<redacted>", "sk-secret-key") != plain {
		t.Fatal("an error without a secret is wrapped anyway")
	}
	if s := redact.String("ab ab", "<r>", "ab"); s != "ab ab" {
		t.Fatalf("a too-short secret replaced: %q", s)
	}
}

func ExampleString() {
	fmt.Println(redact.String("401: invalid key sk-live-0123456789", "<api key>", "sk-live-0123456789"))
	// Output: 401: invalid key <api key>
}
