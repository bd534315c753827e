package app

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/joho/godotenv"

	"github.com/membot/membot/internal/redact"
)

// ConfigError is a missing or malformed setting; main exits with code 2.
type ConfigError struct{ msg string }

// NewConfigError reports a bad setting or command line.
func NewConfigError(msg string) *ConfigError { return &ConfigError{msg} }

func (e *ConfigError) Error() string { return e.msg }

// Getenv looks a variable up in the environment, telling a variable set
// to "" from one not set (os.LookupEnv).
type Getenv func(key string) (string, bool)

// env looks settings up in the real environment first, then in .env: a
// variable set in the environment wins even when empty, so `X= membot`
// overrides X of .env.
type env struct {
	getenv Getenv
	file   map[string]string
	err    error // the first bad setting
	// seen is each setting's value as it was read: what was set, else
	// the default it fell back to (the web's settings page shows them,
	// secrets masked: Config.ShownSettings).
	seen map[string]seenValue
}

// seenValue is a setting's value as read, and whether it was set.
type seenValue struct {
	value string
	set   bool
}

// newEnv reads .env (or ENV_FILE) from the working directory when present.
func newEnv(getenv Getenv) (*env, error) {
	e := &env{getenv: getenv, file: map[string]string{}, seen: map[string]seenValue{}}
	envFile, _ := getenv("ENV_FILE")
	path := envFile
	if path == "" {
		path = ".env"
	}
	file, err := godotenv.Read(path)
	var pathErr *fs.PathError
	switch {
	case err == nil:
		e.file = file
	case errors.Is(err, fs.ErrNotExist) && envFile == "":
	case errors.As(err, &pathErr):
		return nil, &ConfigError{fmt.Sprintf("cannot read %s: %v", path, err)}
	default:
		// The parser's error quotes the rest of the file, keys and all.
		return nil, &ConfigError{fmt.Sprintf("cannot read %s: it is not lines of NAME=value (a name with a character other than "+
			"letters, digits, _ and ., or a quoted value left open); the line is not shown, as it may hold a secret", path)}
	}
	return e, nil
}

// LogFormat is LOG_FORMAT as the environment and .env set it ("text" when
// unset or unreadable), for reporting an error that stopped start-up in
// the form the logs have.
func LogFormat(getenv Getenv) string {
	if e, err := newEnv(getenv); err == nil && e.lookup("LOG_FORMAT") == "json" {
		return "json"
	}
	return "text"
}

func (e *env) lookup(key string) string {
	if v, set := e.getenv(key); set {
		return v
	}
	return e.file[key]
}

// fail records the first bad setting. The message may quote what was
// set, so the secrets of the settings are taken out of it (e.secrets).
func (e *env) fail(key, format string, args ...any) {
	if e.err == nil {
		e.err = &ConfigError{e.secrets().String(key + ": " + fmt.Sprintf(format, args...))}
	}
}

// shownSecrets takes secrets out of text meant for the operator's eyes
// before the settings are read whole: the values of the secret settings
// (Config.secretSettings) as set, and every URL's credentials and query.
type shownSecrets struct{ values *redact.Secrets }

// String is s without the secrets.
func (s shownSecrets) String(text string) string { return s.values.String(redact.URLs(text)) }

// secrets is what e's settings hold secret, for its error messages.
func (e *env) secrets() shownSecrets {
	var values []string
	for _, s := range (&Config{}).secretSettings() {
		values = append(values, strings.TrimSpace(e.lookup(s.name)))
	}
	return shownSecrets{redact.New(values...)}
}

// Redact is err as start-up shows it (main's fatal): without the secrets
// the settings of getenv hold (see env.secrets), whatever failed.
func Redact(getenv Getenv, err error) error {
	e, envErr := newEnv(getenv)
	if envErr != nil {
		e = &env{getenv: getenv, file: map[string]string{}} // the environment's own settings still count
	}
	msg := err.Error()
	clean := e.secrets().String(msg)
	if clean == msg {
		return err
	}
	var cfgErr *ConfigError
	if errors.As(err, &cfgErr) {
		return &ConfigError{clean} // still a bad setting, for the exit code
	}
	return errors.New(clean)
}

// A reader reads one setting into its field, which holds the default
// beforehand and keeps it when the setting is unset or empty. The readers
// below are the kinds of setting; a bad value is e's error, naming key.
type reader func(e *env, key string)

// text reads a string.
func text(p *string) reader { return func(e *env, key string) { *p = e.str(key, *p) } }

// textOr reads a string whose default is another setting's value (*def).
func textOr(p, def *string) reader { return func(e *env, key string) { *p = e.str(key, *def) } }

// optional reads a string whose empty value means "off": the default
// stays only when the setting is not set at all, in the environment or in .env.
func optional(p *string) reader {
	return func(e *env, key string) {
		v, set := e.getenv(key)
		if !set {
			v, set = e.file[key]
		}
		if set {
			*p = strings.TrimSpace(v)
		}
		e.note(key, *p, set)
	}
}

// oneOf reads one of the words allowed.
func oneOf(p *string, allowed ...string) reader {
	return func(e *env, key string) {
		v := e.str(key, *p)
		for _, a := range allowed {
			if v == a {
				*p = v
				return
			}
		}
		e.fail(key, "must be %s, got %q", orList(allowed), v)
	}
}

// either reads one of two words into a switch: on when it is the word on.
func either(p *bool, on string, words [2]string) reader {
	return func(e *env, key string) {
		def := words[0]
		if (def == on) != *p {
			def = words[1]
		}
		switch v := e.str(key, def); v {
		case words[0], words[1]:
			*p = v == on
		default:
			e.fail(key, "must be %s or %s, got %q", words[0], words[1], v)
		}
	}
}

// orList is "a, b or c".
func orList(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// intIn reads a whole number from lo to hi.
func intIn(p *int, lo, hi int) reader {
	return func(e *env, key string) { *p = e.int(key, *p, lo, hi) }
}

// int64In reads a whole number from lo to hi, such as a size in bytes.
func int64In(p *int64, lo, hi int) reader {
	return func(e *env, key string) { *p = int64(e.int(key, int(*p), lo, hi)) }
}

// int64From reads a whole number of at least lo.
func int64From(p *int64, lo int64) reader {
	return func(e *env, key string) { *p = e.int64(key, *p, lo) }
}

// duration reads a positive duration.
func duration(p *time.Duration) reader {
	return func(e *env, key string) { *p = e.duration(key, *p) }
}

// boolean reads true or false (or 1, yes, on and 0, no, off).
func boolean(p *bool) reader { return func(e *env, key string) { *p = e.bool(key, *p) } }

// httpURL reads an http(s) URL, without its trailing slashes.
func httpURL(p *string) reader { return func(e *env, key string) { *p = e.url(key, *p) } }

// httpURLOr reads an http(s) URL whose default is another setting's (*def).
func httpURLOr(p, def *string) reader { return func(e *env, key string) { *p = e.url(key, *def) } }

// optionalURL reads an http(s) URL whose empty value means "off".
func optionalURL(p *string) reader {
	return func(e *env, key string) {
		if e.str(key, *p) != "" {
			*p = e.url(key, *p)
		}
	}
}

// listenAddr reads a listen address; empty when unset with no default.
func listenAddr(p *string) reader { return func(e *env, key string) { *p = e.addr(key, *p) } }

// optionalAddr reads a listen address whose empty value means "off".
func optionalAddr(p *string) reader {
	return func(e *env, key string) {
		optional(p)(e, key)
		if *p != "" {
			*p = e.addr(key, *p)
		}
	}
}

// idSet reads Telegram ids separated by commas or spaces.
func idSet(p *map[int64]bool) reader { return func(e *env, key string) { *p = e.ids(key) } }

func (e *env) str(key, def string) string {
	if v := strings.TrimSpace(e.lookup(key)); v != "" {
		e.note(key, v, true)
		return v
	}
	e.note(key, def, false)
	return def
}

// note records a setting's value as read; a reader whose default is not
// a string notes it when it falls back to it.
func (e *env) note(key, value string, set bool) {
	if e.seen != nil {
		e.seen[key] = seenValue{value, set}
	}
}

func (e *env) int(key string, def, lo, hi int) int {
	s := e.str(key, "")
	if s == "" {
		e.note(key, strconv.Itoa(def), false)
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		e.fail(key, "must be a whole number from %d to %d, got %q", lo, hi, s)
		return def
	}
	return n
}

func (e *env) duration(key string, def time.Duration) time.Duration {
	s := e.str(key, "")
	if s == "" {
		e.note(key, def.String(), false)
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		e.fail(key, "must be a positive duration such as 30s or 2m, got %q", s)
		return def
	}
	return d
}

// int64 reads a whole number of at least lo; 0 conventionally means "off".
func (e *env) int64(key string, def, lo int64) int64 {
	s := e.str(key, "")
	if s == "" {
		e.note(key, strconv.FormatInt(def, 10), false)
		return def
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < lo {
		e.fail(key, "must be a whole number of at least %d, got %q", lo, s)
		return def
	}
	return n
}

func (e *env) bool(key string, def bool) bool {
	s := strings.ToLower(e.str(key, ""))
	switch s {
	case "":
		e.note(key, strconv.FormatBool(def), false)
		return def
	case "true", "1", "yes", "on":
		return true
	case "false", "0", "no", "off":
		return false
	}
	e.fail(key, "must be true or false, got %q", s)
	return def
}

// list reads a comma-separated list; "none" stands for the empty list, so
// that a default can be switched off.
func (e *env) list(key, def string) []string {
	s := e.str(key, def)
	if strings.EqualFold(s, "none") {
		return nil
	}
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// ids reads a list of Telegram ids separated by commas or spaces.
func (e *env) ids(key string) map[int64]bool {
	set := map[int64]bool{}
	for _, f := range strings.FieldsFunc(e.str(key, ""), func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
		id, err := strconv.ParseInt(f, 10, 64)
		if err != nil || id == 0 {
			e.fail(key, "must be Telegram ids separated by commas, such as 123456789,-1001234567890; %q is not one", f)
			return set
		}
		set[id] = true
	}
	return set
}

// addr reads a listen address such as :9090 or 127.0.0.1:8443.
func (e *env) addr(key, def string) string {
	s := e.str(key, def)
	if s == "" {
		return ""
	}
	if _, port, err := net.SplitHostPort(s); err != nil || port == "" {
		e.fail(key, "must be a listen address such as :9090 or 127.0.0.1:9090, got %q", s)
	}
	return s
}

func (e *env) url(key, def string) string {
	s := strings.TrimRight(e.str(key, def), "/")
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		if !strings.Contains(s, "://") { // not even shaped like a URL: it may be a key pasted in the wrong place
			e.fail(key, "must be an http(s) URL such as https://api.example.com/v1 (what is set is not shown: it is no URL, and may be a key)")
		} else {
			e.fail(key, "must be an http(s) URL, got %q", redact.URL(s))
		}
	}
	return s
}

// location reads a time zone's IANA name; UTC, and an error, when unknown.
func (e *env) location(key, def string) *time.Location {
	tz := e.str(key, def)
	loc, err := time.LoadLocation(tz)
	if err != nil {
		e.fail(key, "is not an IANA time zone name (such as Europe/Moscow), got %q", tz)
		return time.UTC
	}
	return loc
}

// databaseURL reads a PostgreSQL URL; empty when unset.
func (e *env) databaseURL(key string) string {
	dsn := e.str(key, "")
	if _, err := pgx.ParseConfig(dsn); err != nil && dsn != "" {
		e.fail(key, "is not a valid PostgreSQL URL (postgres://user:password@host:5432/db)")
	}
	return dsn
}
