package metrics

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

func TestReadyzFailsWhileACheckFails(t *testing.T) {
	var down atomic.Bool
	srv := httptest.NewServer(New().Handler(
		Check{Name: "database", Probe: func(context.Context) error {
			if down.Load() {
				return errors.New("dial tcp: connection refused")
			}
			return nil
		}},
		Check{Name: "telegram", Probe: func(context.Context) error { return nil }},
	))
	defer srv.Close()
	get := func(path string) (int, string) {
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/readyz"); code != 200 || body != "database: ok\ntelegram: ok\n" {
		t.Fatalf("ready: %d %q", code, body)
	}
	down.Store(true)
	if code, body := get("/readyz"); code != 503 || !strings.Contains(body, "database: dial tcp: connection refused") || !strings.Contains(body, "telegram: ok") {
		t.Fatalf("database down: %d %q", code, body)
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Fatalf("/healthz = %d while the database is down; the process is up", code)
	}
}
