package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// maxInitData bounds the Mini App's launch data: Telegram's are well
// under a kilobyte.
const maxInitData = 4096

// TelegramUser is the user a Mini App was opened by, as Telegram signed it.
type TelegramUser struct {
	ID           int64  `json:"id"`
	FirstName    string `json:"first_name"`
	LastName     string `json:"last_name"`
	Username     string `json:"username"`
	LanguageCode string `json:"language_code"`
}

// Errors of CheckInitData, told apart in tests and logs only: the page
// hears one answer for all of them.
var (
	ErrInitDataSignature = errors.New("init data: the signature does not match")
	ErrInitDataOld       = errors.New("init data: too old")
	ErrInitDataMalformed = errors.New("init data: malformed")
)

// CheckInitData verifies a Mini App's launch data (Telegram.WebApp.initData)
// as the Bot API docs say: the hash is HMAC-SHA256 of the sorted
// "key=value" lines but hash, keyed by HMAC-SHA256 of the bot token keyed
// by "WebAppData"; auth_date must be within maxAge of now. It returns the
// user Telegram vouches for: a user id the page sends is never trusted.
func CheckInitData(raw, botToken string, maxAge time.Duration, now time.Time) (TelegramUser, error) {
	if raw == "" || len(raw) > maxInitData || botToken == "" {
		return TelegramUser{}, ErrInitDataMalformed
	}
	values, err := url.ParseQuery(raw)
	if err != nil {
		return TelegramUser{}, ErrInitDataMalformed
	}
	got, err := hex.DecodeString(values.Get("hash"))
	if err != nil || len(got) != sha256.Size {
		return TelegramUser{}, ErrInitDataMalformed
	}
	lines := make([]string, 0, len(values))
	for k, vs := range values {
		if k == "hash" {
			continue
		}
		if len(vs) != 1 { // a field named twice is not what Telegram signs
			return TelegramUser{}, ErrInitDataMalformed
		}
		lines = append(lines, k+"="+vs[0])
	}
	sort.Strings(lines)
	if !hmac.Equal(got, initDataHash(strings.Join(lines, "\n"), botToken)) {
		return TelegramUser{}, ErrInitDataSignature
	}
	authDate, err := strconv.ParseInt(values.Get("auth_date"), 10, 64)
	if err != nil {
		return TelegramUser{}, ErrInitDataMalformed
	}
	if age := now.Sub(time.Unix(authDate, 0)); age > maxAge || age < -time.Minute {
		return TelegramUser{}, ErrInitDataOld
	}
	var u TelegramUser
	if err := json.Unmarshal([]byte(values.Get("user")), &u); err != nil || u.ID <= 0 {
		return TelegramUser{}, ErrInitDataMalformed
	}
	return u, nil
}

// initDataHash is the signature of a data-check string under botToken.
func initDataHash(dataCheck, botToken string) []byte {
	key := hmac.New(sha256.New, []byte("WebAppData"))
	key.Write([]byte(botToken))
	mac := hmac.New(sha256.New, key.Sum(nil))
	mac.Write([]byte(dataCheck))
	return mac.Sum(nil)
}

// SignInitData is launch data for user signed with botToken at authDate,
// as Telegram makes it: for tests and for the fakes of Telegram's clients.
func SignInitData(u TelegramUser, botToken string, authDate time.Time) string {
	user, _ := json.Marshal(u)
	v := url.Values{}
	v.Set("auth_date", strconv.FormatInt(authDate.Unix(), 10))
	v.Set("query_id", "AAF"+strconv.FormatInt(u.ID, 36))
	v.Set("user", string(user))
	lines := []string{}
	for k := range v {
		lines = append(lines, k+"="+v.Get(k))
	}
	sort.Strings(lines)
	v.Set("hash", hex.EncodeToString(initDataHash(strings.Join(lines, "\n"), botToken)))
	return v.Encode()
}
