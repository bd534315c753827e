package telegram

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestErrorsNeverShowTheToken(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.Close() // connection refused: the library's error names the URL, token included
	token := "999:SECRET-token"
	c := NewClient(context.Background(), context.Background(), Config{Token: token, APIURL: srv.URL, Retry: SendRetry{Attempts: 1}})
	_, err := c.SendMessage(context.Background(), SendMessageParams{Chat: Chat{ID: 1}, Text: "hi"})
	if err == nil || strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), "<redacted>") {
		t.Fatalf("error = %v", err)
	}
	var netErr interface{ Timeout() bool }
	if !errors.As(err, &netErr) {
		t.Errorf("the redacted error lost its cause: %T", err)
	}
}
