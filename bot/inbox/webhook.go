package inbox

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// SecretHeader carries the webhook's secret_token on every update Telegram posts.
const SecretHeader = "X-Telegram-Bot-Api-Secret-Token"

// maxUpdateSize bounds the body of one posted update.
const maxUpdateSize = 1 << 20

// Webhook receives the updates Telegram posts (MODE=webhook). It checks the
// secret token, stores the update in the durable inbox and answers 200 at
// once; the dispatcher, told right after, does the work. Several replicas
// may run it behind one load balancer: the inbox's claims keep each update
// handled once and each chat in order, whichever replica stored it.
type Webhook struct {
	Inbox   Inbox
	Notify  func(chatIDs []int64) // nil when Inbox starts the work itself (the dispatcher)
	Secret  string
	Metrics Metrics
	Log     *slog.Logger

	refused sampled // wrong-secret requests, logged once a minute: a flood must not flood the log
}

// sampled counts events and lets one log line through per interval,
// carrying how many happened since the last line.
type sampled struct {
	mu    sync.Mutex
	last  time.Time
	count int
}

// note counts one event and reports whether to log it now, with the
// number of events the line stands for.
func (s *sampled) note(now time.Time, every time.Duration) (log bool, count int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.count++
	if !s.last.IsZero() && now.Sub(s.last) < every {
		return false, 0
	}
	s.last, count, s.count = now, s.count, 0
	return true, count
}

func (wh *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.Header.Get(SecretHeader)), []byte(wh.Secret)) != 1 {
		if log, n := wh.refused.note(time.Now(), time.Minute); log {
			wh.Log.Warn("webhook requests with a wrong secret token refused", "count", n, "last_remote", r.RemoteAddr, "logged", "at most once a minute")
		}
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxUpdateSize))
	if err != nil {
		http.Error(w, "cannot read the update", http.StatusBadRequest)
		return
	}
	updates, err := parseUpdates([]json.RawMessage{body})
	if len(updates) != 1 || updates[0].UpdateID <= 0 {
		wh.Log.Warn("webhook request is not a Telegram update", "remote", r.RemoteAddr, "err", err)
		http.Error(w, "not a Telegram update", http.StatusBadRequest)
		return
	}
	if err != nil { // an update id, but an unexpected shape: kept under chat 0 and given up
		wh.Log.Error("Telegram sent an update of an unexpected shape", "update_id", updates[0].UpdateID, "err", err)
	}
	if err := wh.Inbox.SaveUpdates(r.Context(), updates); err != nil {
		// Telegram posts it again later, maybe to another replica.
		wh.Log.Error("storing a webhook update failed; Telegram will retry", "update_id", updates[0].UpdateID, "err", err)
		http.Error(w, "try again later", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
	orNone(wh.Metrics).UpdatesReceived("webhook", 1)
	if wh.Notify != nil {
		wh.Notify([]int64{updates[0].ChatID})
	}
}

// DefaultWebhookSecret derives the webhook's secret_token from the bot
// token: unguessable without the token, and the same on every replica, so
// no replica's setWebhook locks the others out.
func DefaultWebhookSecret(botToken string) string {
	mac := hmac.New(sha256.New, []byte(botToken))
	mac.Write([]byte("membot webhook secret_token"))
	return hex.EncodeToString(mac.Sum(nil))
}
