package redact_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/membot/membot/internal/redact"
)

func TestErrorHidesEverySecretAndKeepsTheChain(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("calling https://x/bot123456:ABCDEF/getMe with key sk-secret-key: %w", io.ErrUnexpectedEOF)
	got := redact.Error(err, redact.Mark, "123456:ABCDEF", "sk-secret-key", "")
	if want := "calling https://x/bot<redacted>/getMe with key <redacted>: unexpected EOF"; got.Error() != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if !errors.Is(got, io.ErrUnexpectedEOF) {
		t.Fatal("the chain is lost")
	}
	if plain := errors.New("nothing secret"); redact.Error(plain, redact.Mark, "sk-secret-key") != plain {
		t.Fatal("an error without a secret is wrapped anyway")
	}
	if s := redact.String("ab ab", "<r>", "ab"); s != "ab ab" {
		t.Fatalf("a too-short secret replaced: %q", s)
	}
}

func ExampleString() {
	fmt.Println(redact.String("401: invalid key sk-live-0123456789", redact.Mark, "sk-live-0123456789"))
	// Output: 401: invalid key <redacted>
}

func TestSecretsHideEveryValueInTextAndInWhatIsWritten(t *testing.T) {
	t.Parallel()
	secrets := redact.New("123456:ABCDEF-token", "sk-secret-key", "", "ab")
	text := "GET /bot123456:ABCDEF-token/getMe: 401 key sk-secret-key rejected (ab)"
	want := "GET /bot<redacted>/getMe: 401 key <redacted> rejected (ab)"
	if got := secrets.String(text); got != want {
		t.Fatalf("String = %q, want %q", got, want)
	}
	var b strings.Builder
	n, err := secrets.Writer(&b).Write([]byte(text))
	if err != nil || n != len(text) || b.String() != want {
		t.Fatalf("Write = %d, %v; wrote %q, want %q", n, err, b.String(), want)
	}
	var none *redact.Secrets
	if none.String(text) != text || redact.New().String(text) != text {
		t.Fatal("no secrets changed the text")
	}
}

func TestURLKeepsNoPasswordAndNoQuery(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"https://api.example/v1":                     "https://api.example/v1",
		"https://bob:s3cret-pass@api.example/v1":     "https://bob:xxxxx@api.example/v1",
		"http://127.0.0.1:8888/search?key=s3cretkey": "http://127.0.0.1:8888/search?<redacted>",
		"not a url": redact.Mark,
	} {
		if got := redact.URL(raw); got != want {
			t.Errorf("URL(%q) = %q, want %q", raw, got, want)
		}
	}
}
