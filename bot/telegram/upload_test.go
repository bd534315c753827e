package telegram

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// go-telegram-bot-api v5.5.1 reads an upload's refusal (sendDocument and
// the other multipart calls) into an Error without its code: Code is 0,
// which looked like network trouble and was retried for ever, blocking the
// chat. The client gives it the answer's error_code (400 when the server
// sends none), so it is permanent: one call, no retry.
func TestARefusedUploadIsPermanentThoughTheLibraryDropsItsCode(t *testing.T) {
	file := filepath.Join(t.TempDir(), "export.md")
	if err := os.WriteFile(file, []byte("# export\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"with error_code":    `{"ok":false,"error_code":400,"description":"Bad Request: file is too big"}`,
		"without error_code": `{"ok":false,"description":"Bad Request: file is too big"}`,
	} {
		t.Run(name, func(t *testing.T) {
			var uploads atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case strings.HasSuffix(r.URL.Path, "/getMe"):
					w.Write([]byte(`{"ok":true,"result":{"id":1,"is_bot":true,"first_name":"membot","username":"membot_test_bot"}}`))
				case strings.HasSuffix(r.URL.Path, "/sendDocument"):
					uploads.Add(1)
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusBadRequest)
					w.Write([]byte(body))
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()

			// The shape: the library's own upload path leaves Code at 0.
			api := &tgbotapi.BotAPI{Token: fakeToken, Client: srv.Client(), Buffer: 1}
			api.SetAPIEndpoint(srv.URL + "/bot%s/%s")
			_, libErr := api.Request(tgbotapi.NewDocument(7, tgbotapi.FilePath(file)))
			var raw *tgbotapi.Error
			if !errors.As(libErr, &raw) || raw.Code != 0 {
				t.Fatalf("the library's upload error is %#v; the test expects its Code-0 shape", libErr)
			}

			c := NewClient(context.Background(), context.Background(), Config{Token: fakeToken, APIURL: srv.URL})
			uploads.Store(0)
			_, err := c.SendDocument(context.Background(), Chat{ID: 7}, "export.md", file, "")
			apiErr, ok := APIError(err)
			if !ok || apiErr.Code != http.StatusBadRequest || !IsPermanent(err) || Transient(err) {
				t.Fatalf("the refused upload is %#v: want a permanent 400", err)
			}
			if n := uploads.Load(); n != 1 {
				t.Fatalf("%d uploads, want 1: a refusal is not retried", n)
			}
		})
	}
}
