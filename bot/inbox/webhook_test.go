package inbox_test

import (
	"github.com/membot/membot/internal/testing/wait"

	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	crand "crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/bot/inbox"
	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/testkit"
)

const hookURL = "https://bot.example.test/telegram/hook"

// webhookMode sets h up as a webhook replica listening on a free port.
func webhookMode(h *testkit.Harness) {
	h.Env["MODE"] = "webhook"
	h.Env["WEBHOOK_URL"] = hookURL
	h.Env["WEBHOOK_LISTEN"] = "127.0.0.1:0"
}

// startWebhookBot starts h and returns the URL its webhook answers at.
func startWebhookBot(h *testkit.Harness) string {
	h.Start()
	addr := h.WaitLog(`msg="webhook server listening" addr=(\S+)`)[1]
	h.WaitLog(`msg="membot is running"`)
	return "http://" + addr + "/telegram/hook"
}

func TestWebhookChecksTheSecretAndStoresBeforeAnswering(t *testing.T) {
	t.Parallel()
	h := testkit.New(t)
	webhookMode(h)
	endpoint := startWebhookBot(h)

	url, secret := h.TG.Webhook()
	if url != hookURL || secret != inbox.DefaultWebhookSecret(testkit.Token) || len(secret) < 32 {
		t.Fatalf("setWebhook registered %q with secret %q", url, secret)
	}
	id, update := h.TG.NewUpdate("message", telegramfake.TextMessage(testkit.Jane.ID, "private", testkit.Jane, "over the webhook"))

	// Wrong or missing secret: 403, and nothing is stored.
	for _, wrong := range []string{"", "not-the-secret", secret[:len(secret)-1]} {
		if code, err := telegramfake.PostUpdate(endpoint, wrong, update); err != nil || code != http.StatusForbidden {
			t.Fatalf("secret %q: status %d, %v; want 403", wrong, code, err)
		}
	}
	for range 50 {
		telegramfake.PostUpdate(endpoint, "flood", update)
	}
	if n := h.Count(`SELECT count(*) FROM updates`); n != 0 {
		t.Fatalf("%d updates stored from forbidden requests", n)
	}
	// 53 refusals, one log line (the next may come a minute later).
	if n := strings.Count(h.Logs.String(), "wrong secret token refused"); n != 1 {
		t.Errorf("%d log lines for 53 wrong-secret requests, want 1", n)
	}
	// Not an update, with the right secret: 400, nothing stored.
	if code, _ := h.TG.PostWebhook(endpoint, []byte(`{"hello":"world"}`)); code != http.StatusBadRequest {
		t.Fatalf("a body that is no update got %d", code)
	}
	if code, _ := testkit.Get(t, endpoint); code != http.StatusMethodNotAllowed {
		t.Fatalf("GET got %d", code)
	}

	// The right secret: 200, stored, answered.
	if code, err := h.TG.PostWebhook(endpoint, update); err != nil || code != http.StatusOK {
		t.Fatalf("the real update got %d, %v", code, err)
	}
	if n := h.Count(`SELECT count(*) FROM updates WHERE update_id = $1`, id); n != 1 {
		t.Fatal("the update was not in the inbox when 200 was answered")
	}
	if _, ok := h.TG.WaitFor(wait.Timeout(), func(s []telegramfake.Sent) bool { return telegramfake.CountTo(s, testkit.Jane.ID) >= 1 }); !ok {
		t.Fatal("no answer to the webhook update")
	}
	// Telegram delivering it again (our 200 got lost) changes nothing.
	if code, _ := h.TG.PostWebhook(endpoint, update); code != http.StatusOK {
		t.Fatalf("a repeated update got %d", code)
	}
	h.WaitIdle()
	if sent := h.TG.SentTo(testkit.Jane.ID); len(sent) != 1 || sent[0] != "echo: over the webhook" {
		t.Fatalf("sent %q", sent)
	}
	if n := len(h.TG.Calls("getUpdates")); n != 0 {
		t.Fatalf("webhook mode polled %d times", n)
	}
}

func TestPollingDeletesAWebhookLeftBehind(t *testing.T) {
	t.Parallel()
	h := testkit.New(t)
	h.TG.SetWebhook("https://old.example.test/hook", "old-secret") // getUpdates answers 409 meanwhile
	h.Start()
	if got := h.Say(testkit.Jane, "are you there?"); got != "echo: are you there?" {
		t.Fatalf("reply = %q", got)
	}
	if url, _ := h.TG.Webhook(); url != "" || len(h.TG.Calls("deleteWebhook")) == 0 {
		t.Fatalf("the webhook is still %q", url)
	}
}

// Two replicas in webhook mode share one database. Updates of many chats are
// posted to them alternately, some twice (Telegram repeats a delivery whose
// answer it did not get): every message is answered exactly once, and each
// chat's answers come in the order of its messages.
func TestTwoWebhookReplicasAnswerEachMessageOnceAndInOrder(t *testing.T) {
	t.Parallel()
	a := testkit.New(t)
	webhookMode(a)
	a.LLM.RespondWith(func(req openai.ChatCompletionRequest) openaifake.Reply {
		r := openaifake.Echo(req)
		r.Delay = time.Duration(rand.IntN(15)) * time.Millisecond // turns of uneven length
		return r
	})
	b := a.Replica()
	endpoints := []string{startWebhookBot(a), startWebhookBot(b)}

	const chats, perChat = 6, 8
	var wg sync.WaitGroup
	for c := range chats {
		user := telegramfake.User{ID: int64(9000 + c), FirstName: fmt.Sprint("user", c)}
		wg.Add(1)
		go func() { // one chat's updates in order; the chats at once
			defer wg.Done()
			for m := range perChat {
				_, update := a.TG.NewUpdate("message", telegramfake.TextMessage(user.ID, "private", user, fmt.Sprintf("c%d m%d", c, m)))
				first := (c + m) % 2
				if code, err := a.TG.PostWebhook(endpoints[first], update); err != nil || code != http.StatusOK {
					t.Errorf("post: %d, %v", code, err)
				}
				if m%3 == 0 { // delivered again, to the other replica
					a.TG.PostWebhook(endpoints[1-first], update)
				}
			}
		}()
	}
	wg.Wait()
	a.WaitIdle()

	for c := range chats {
		var want []string
		for m := range perChat {
			want = append(want, fmt.Sprintf("echo: c%d m%d", c, m))
		}
		if got := a.TG.SentTo(int64(9000 + c)); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("chat %d got %q\nwant %q", c, got, want)
		}
	}
	if n := len(a.LLM.Requests()); n != chats*perChat {
		t.Errorf("model calls = %d, want %d", n, chats*perChat)
	}
	if n := a.Count(`SELECT count(*) FROM updates WHERE attempts <> 1 OR error IS NOT NULL`); n != 0 {
		t.Errorf("%d updates claimed more than once or failed", n)
	}
	if n := a.Count(`SELECT count(DISTINCT owner_id) FROM updates`); n != 2 {
		t.Errorf("updates were handled by %d replicas, want both", n)
	}
	// How long an update lay ready (stored, its chat's previous one done)
	// before some replica took it up: no sweep interval should show here.
	var idle float64
	a.DB.QueryRow(context.Background(), `SELECT extract(epoch FROM max(claimed_at - greatest(received_at, prev_done)))
		FROM (SELECT claimed_at, received_at, lag(done_at) OVER (PARTITION BY chat_id ORDER BY update_id) AS prev_done FROM updates) u`).Scan(&idle)
	t.Logf("the longest an update lay ready before a replica took it: %.3fs", idle)
}

// With WEBHOOK_TLS_CERT and WEBHOOK_TLS_KEY the webhook speaks HTTPS itself.
func TestWebhookServesHTTPSWithCertFiles(t *testing.T) {
	t.Parallel()
	certFile, keyFile, pool := selfSignedCert(t)
	h := testkit.New(t)
	webhookMode(h)
	h.Env["WEBHOOK_TLS_CERT"], h.Env["WEBHOOK_TLS_KEY"] = certFile, keyFile
	endpoint := strings.Replace(startWebhookBot(h), "http://", "https://", 1)
	h.WaitLog(`msg="webhook server listening" addr=\S+ tls=true`)

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	_, secret := h.TG.Webhook()
	_, update := h.TG.NewUpdate("message", telegramfake.TextMessage(testkit.Jane.ID, "private", testkit.Jane, "over TLS"))
	if code, err := telegramfake.PostUpdateWith(client, endpoint, secret, update); err != nil || code != http.StatusOK {
		t.Fatalf("HTTPS post: %d, %v", code, err)
	}
	if _, ok := h.TG.WaitFor(wait.Timeout(), func(s []telegramfake.Sent) bool { return telegramfake.CountTo(s, testkit.Jane.ID) >= 1 }); !ok {
		t.Fatal("no answer to the update posted over HTTPS")
	}
}

// selfSignedCert writes a certificate for 127.0.0.1 and its key to files
// and returns them with a pool that trusts the certificate.
func selfSignedCert(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "membot test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(crand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestMain fails the package when any request a model fake received broke
// the role invariant strict servers hold membot to (openaifake.CheckRoles).
func TestMain(m *testing.M) { os.Exit(openaifake.Main(m)) }
