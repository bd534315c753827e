package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestToolArgumentsAreDecodedStrictly(t *testing.T) {
	t.Parallel()
	type args struct {
		URL string `json:"url"`
		Opt struct {
			Mode string `json:"mode"`
		} `json:"opt"`
	}
	for raw, wantErr := range map[string]string{
		`{"url":"https://a.example/"}`:                         "",
		`{"url":"https://a.example/","url":"https://evil/"}`:   "comes twice",
		`{"opt":{"mode":"a","mode":"b"}}`:                      `"mode" comes twice in opt`,
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

// The canonical form: parsed once, written once, compact, keys in the
// model's order; a key twice at any depth, or anything but one object, is
// refused.
func TestCanonicalArgs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ raw, want, wantErr string }{
		{raw: ``, want: `{}`},
		{raw: " {\n \"to\" : \"mom@example.com\", \"cc\": {\"to\": \"x\", \"n\": [1, 2.50, -0, 1e3, true, null]}}\n",
			want: `{"to":"mom@example.com","cc":{"to":"x","n":[1,2.50,-0,1e3,true,null]}}`},
		{raw: `{"b":1,"a":2}`, want: `{"b":1,"a":2}`}, // the model's order, not sorted
		{raw: `{"s":"\u0041<&>\u202e\/\n"}`, want: `{"s":"A<&>` + "\u202e" + `/\n"}`},
		{raw: `{"a":[{"k":1},{"k":2}],"b":[[],{}]}`, want: `{"a":[{"k":1},{"k":2}],"b":[[],{}]}`},
		{raw: `{"to":"a","to":"b"}`, wantErr: `the key "to" comes twice; each key must come once`},
		{raw: `{"cc":{"to":"attacker@evil.example","to":"mom@example.com"}}`, wantErr: `the key "to" comes twice in cc;`},
		{raw: `{"list":[{"a":1},{"a":1,"b":2,"a":3}]}`, wantErr: `the key "a" comes twice in list[1];`},
		{raw: `{"x":{"y":[0,[{"z":1,"z":2}]]}}`, wantErr: `the key "z" comes twice in x.y[1][0];`},
		{raw: `{"same":1,"other":{"same":2}}`, want: `{"same":1,"other":{"same":2}}`}, // one key at each level is fine
		{raw: `{"to": `, wantErr: "the arguments are not valid JSON"},
		{raw: `{"to": 'x'}`, wantErr: "the arguments are not valid JSON"},
		{raw: `{"a":1} {"a":2}`, wantErr: "something follows the object"},
		{raw: `{"a":1}}`, wantErr: "not valid JSON"},
		{raw: `[{"a":1}]`, wantErr: "not a JSON object"},
		{raw: `"text"`, wantErr: "not a JSON object"},
		{raw: `null`, wantErr: "not a JSON object"},
		{raw: strings.Repeat(`{"a":`, 70) + `1` + strings.Repeat(`}`, 70), wantErr: "deeper than 64"},
		{raw: `{"a":"` + strings.Repeat("x", 17000) + `"}`, wantErr: "longer than"},
	} {
		got, err := CanonicalArgs(c.raw)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("CanonicalArgs(%.60q) = %q, %v; want the error %q", c.raw, got, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("CanonicalArgs(%.60q) = %q, %v; want %q", c.raw, got, err, c.want)
			continue
		}
		if again, err := CanonicalArgs(got); err != nil || again != got {
			t.Errorf("CanonicalArgs is not idempotent on %q: %q, %v", got, again, err)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("CanonicalArgs(%.60q) = %q is not JSON", c.raw, got)
		}
	}
}

// Args reads the top-level fields in their order, strings decoded and
// other values as their canonical JSON, with no schema.
func TestArgsAreTheCanonicalFieldsInOrder(t *testing.T) {
	t.Parallel()
	got, err := Args(`{"to": "mom@example.com", "cc": {"to": "x"}, "n": 2, "s": "a\nb"}`)
	want := []Arg{{"to", "mom@example.com"}, {"cc", `{"to":"x"}`}, {"n", "2"}, {"s", "a\nb"}}
	if err != nil || len(got) != len(want) {
		t.Fatalf("Args = %+v, %v", got, err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Args[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, err := Args(`{"cc":{"to":"a","to":"b"}}`); err == nil {
		t.Error("Args read a duplicate key")
	}
}

// BenchmarkCanonicalArgs: arguments near the 16 KiB bound, in many keys.
func BenchmarkCanonicalArgs(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("{")
	for i := 0; sb.Len() < maxArgumentBytes-200; i++ {
		fmt.Fprintf(&sb, `"key%d": {"text": "%s", "n": [1, 2.5, true, null]},`, i, strings.Repeat("é", 40))
	}
	raw := strings.TrimSuffix(sb.String(), ",") + "}"
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := CanonicalArgs(raw); err != nil {
			b.Fatal(err)
		}
	}
}
