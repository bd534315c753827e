package redact_test

import (
	"errors"
	"fmt"
	"io"
	"slices"
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
		"https://bob:s3cret-pass@api.example/v1":     "https://<redacted>@api.example/v1",
		"http://127.0.0.1:8888/search?key=s3cretkey": "http://127.0.0.1:8888/search?<redacted>",
		"not a url": "not a url",
	} {
		if got := redact.URL(raw); got != want {
			t.Errorf("URL(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestURLsTakeCredentialsAndQueriesOutOfWellFormedAndMalformedURLs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{`must be an http(s) URL, got "htps://user:sk-secret@api.example.com/v1"`, `must be an http(s) URL, got "htps://<redacted>@api.example.com/v1"`},
		{`got "https://sk-secret@api.example.com"`, `got "https://<redacted>@api.example.com"`},
		{`got "https://api.example.com/v1?key=sk-secret&v=2" and "http://x/#frag-secret"`, `got "https://api.example.com/v1?<redacted>" and "http://x/#<redacted>"`},
		{`"https://u:p@ss:w/rd@host:99999/v1?key=a b"`, `"https://<redacted>@host:99999/v1?<redacted> b"`},
		{"https://u:sk-secret@host%zz/ then https://plain.example/v1", "https://<redacted>@host%zz/ then https://plain.example/v1"},
		{"no URL here: user:pass@host?key=1", "no URL here: user:pass@host?key=1"},
		{"https://api.example.com/v1", "https://api.example.com/v1"},
	} {
		if got := redact.URLs(c.in); got != c.want {
			t.Errorf("URLs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	got := redact.URLSecrets("https://user:sk-password@host/v1?key=sk-query-key&x=1")
	slices.Sort(got)
	if want := []string{"1", "key=sk-query-key&x=1", "sk-password", "sk-query-key"}; !slices.Equal(got, want) {
		t.Errorf("URLSecrets = %q, want %q", got, want)
	}
	if got := redact.URLSecrets("https://sk-user-key@host"); len(got) != 1 || got[0] != "sk-user-key" {
		t.Errorf("URLSecrets of a URL whose user is the key = %q", got)
	}
}
