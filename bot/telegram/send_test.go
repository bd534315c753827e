package telegram

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf16"
)

func TestSplitMessageKeepsPartsUnderTheLimitAndLosesNothing(t *testing.T) {
	para := strings.Repeat("word ", 300)           // 1500 chars
	emoji := strings.Repeat("😀", 3000)             // 6000 UTF-16 units, no spaces
	lines := strings.Repeat("line of text\n", 500) // 6500 chars
	for name, text := range map[string]string{"paragraphs": para + "\n\n" + para + "\n\n" + para + "\n\n" + para, "emoji": emoji, "lines": lines, "short": "hi"} {
		parts := SplitMessage(text, MaxMessageLength)
		joined := ""
		for _, p := range parts {
			if n := len(utf16.Encode([]rune(p))); n > MaxMessageLength || n == 0 {
				t.Errorf("%s: a part has %d UTF-16 units", name, n)
			}
			joined += p
		}
		squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
		if squash(joined) != squash(text) {
			t.Errorf("%s: text lost or changed in splitting", name)
		}
	}
	parts := SplitMessage(para+"\n\n"+para+"\n\n"+para+"\n\n"+para, MaxMessageLength)
	if len(parts) != 2 || !strings.HasSuffix(parts[0], "word") {
		t.Errorf("paragraph split gave %d parts", len(parts))
	}
}

func TestErrorsNeverShowTheToken(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.Close() // connection refused: the library's error names the URL, token included
	token := "999:SECRET-token"
	c := NewClient(context.Background(), context.Background(), Config{Token: token, APIURL: srv.URL, Retry: SendRetry{Attempts: 1}})
	_, err := c.SendText(context.Background(), Chat{ID: 1}, 0, "hi")
	if err == nil || strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), "<token>") {
		t.Fatalf("error = %v", err)
	}
	var netErr interface{ Timeout() bool }
	if !errors.As(err, &netErr) {
		t.Errorf("the redacted error lost its cause: %T", err)
	}
}
