package netcause_test

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/membot/membot/internal/netcause"
)

var telegram = netcause.Service{Name: "the Bot API server", URLSetting: "TELEGRAM_API_URL", KeySetting: "TELEGRAM_BOT_TOKEN", Key: "token"}

// status is a server's refusal, as the clients' errors carry it.
type status struct {
	code int
	desc string
}

func (s status) Error() string             { return "refused" }
func (s status) HTTPStatus() (int, string) { return s.code, s.desc }

// get is the error of a real GET of rawURL with client.
func get(t *testing.T, client *http.Client, rawURL string) error {
	t.Helper()
	resp, err := client.Get(rawURL)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("GET %s succeeded", rawURL)
	}
	return err
}

// Each kind of failure is said in words with the setting to check; the
// network ones are real failures of real calls (a port nothing listens
// on, a certificate nobody signed, a server that does not answer), the
// name that does not resolve is the resolver's error as Go returns it.
func TestEachFailureIsSaidInWords(t *testing.T) {
	t.Parallel()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	selfSigned := httptest.NewUnstartedServer(http.NotFoundHandler())
	selfSigned.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake
	selfSigned.StartTLS()
	defer selfSigned.Close()
	hold := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-hold }))
	defer slow.Close()
	defer close(hold)
	closer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close() // no answer: the connection just ends
	}))
	defer closer.Close()
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()

	token := "123456:SECRET-token"
	dns := &url.Error{Op: "Post", URL: "https://api.example/bot" + token + "/getMe",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "api.example", IsNotFound: true}}}
	for _, tc := range []struct {
		name string
		err  error
		kind netcause.Kind
		want string
	}{
		{"dns", dns, netcause.DNS, "cannot resolve api.example: check TELEGRAM_API_URL and DNS"},
		{"refused", get(t, http.DefaultClient, closedURL+"/bot"+token+"/getMe"), netcause.Refused,
			"nothing listens at " + strings.TrimPrefix(closedURL, "http://") + " (connection refused): check TELEGRAM_API_URL and that the Bot API server runs"},
		{"certificate", get(t, http.DefaultClient, selfSigned.URL), netcause.TLS,
			"the TLS certificate of " + strings.TrimPrefix(selfSigned.URL, "https://") + " is not trusted (signed by an unknown authority): check TELEGRAM_API_URL and the server's certificate"},
		{"not tls", get(t, http.DefaultClient, strings.Replace(plain.URL, "http://", "https://", 1)), netcause.TLS,
			strings.TrimPrefix(plain.URL, "http://") + " does not speak TLS: check TELEGRAM_API_URL (http:// rather than https://?)"},
		{"timeout", get(t, &http.Client{Timeout: 50 * time.Millisecond}, slow.URL), netcause.Timeout,
			"no answer from " + strings.TrimPrefix(slow.URL, "http://") + " in time: check TELEGRAM_API_URL, the network and firewalls"},
		{"closed", get(t, http.DefaultClient, closer.URL), netcause.Other,
			strings.TrimPrefix(closer.URL, "http://") + " closed the connection: check TELEGRAM_API_URL: its host, port and scheme"},
		{"deadline", context.DeadlineExceeded, netcause.Timeout, "no answer from the Bot API server in time: check TELEGRAM_API_URL, the network and firewalls"},
		{"401", status{401, "Unauthorized"}, netcause.Unauthorized, "the token was refused (401: Unauthorized): check TELEGRAM_BOT_TOKEN"},
		{"403", status{403, "Forbidden: bot was blocked"}, netcause.Unauthorized, "the token was refused (403: Forbidden: bot was blocked): check TELEGRAM_BOT_TOKEN"},
		{"404", status{404, "Not Found"}, netcause.NotFound, "the Bot API server has no such thing (404: Not Found): check TELEGRAM_API_URL"},
		{"500", status{500, "Internal Server Error"}, netcause.Status, "the Bot API server answered 500: Internal Server Error"},
		{"wrapped 401", errors.Join(errors.New("getMe"), status{401, "Unauthorized"}), netcause.Unauthorized, "the token was refused (401: Unauthorized): check TELEGRAM_BOT_TOKEN"},
		{"no status", status{0, ""}, netcause.Other, "refused: check TELEGRAM_API_URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := netcause.Explain(tc.err, telegram)
			if got.Kind != tc.kind || got.String() != tc.want {
				t.Errorf("Explain(%v) = %d %q, want %d %q", tc.err, got.Kind, got.String(), tc.kind, tc.want)
			}
			if strings.Contains(got.String(), token) {
				t.Errorf("the token is in %q", got.String())
			}
		})
	}
}
