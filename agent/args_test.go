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
		err := DecodeArgs(json.RawMessage(raw), &v)
		if wantErr == "" && err != nil || wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)) {
			t.Errorf("DecodeArgs(%.60s) = %v, want %q", raw, err, wantErr)
		}
	}
}
