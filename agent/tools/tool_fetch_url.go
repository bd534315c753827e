package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/html/charset"
	"golang.org/x/net/idna"

	"github.com/membot/membot/agent"
)

const (
	fetchTimeout   = 20 * time.Second // the whole request, redirects and body included
	fetchMaxBytes  = 2 << 20          // of the body read; the rest is not downloaded
	fetchRedirects = 5
)

// newFetchURL reads a web page: an HTTP GET of an http or https URL, with
// the text extracted from HTML. Only public addresses are reached (unless
// env.FetchAllowPrivate), checked at connect time.
func newFetchURL(env Env) agent.Tool {
	client := newFetchClient(env.FetchAllowPrivate)
	return agent.Tool{
		Name: "fetch_url",
		Description: "Fetches a web page (HTTP GET of an http or https URL) and returns its title and readable text. " +
			"The user may have to approve each fetch first.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"url": map[string]any{"type": "string", "description": "the http or https URL"},
			},
			"required": []string{"url"},
		},
		Run: func(ctx context.Context, _ *agent.TurnInfo, raw json.RawMessage) (string, error) {
			u, err := fetchTarget(raw)
			if err != nil {
				return "", err
			}
			return fetch(ctx, client, u)
		},
		Describe: describeFetch,
		Outside:  true,
		Source: func(raw json.RawMessage) agent.Source {
			s := agent.Source{Kind: agent.SourcePage}
			if u, err := fetchTarget(raw); err == nil {
				s.Name = displayHost(u)
			}
			return s
		},
		// A URL can carry what the model read to anyone's server.
		ConfirmAfterOutside: true,
	}
}

// newFetchClient returns an HTTP client that is bounded in time and
// redirects, ignores proxy settings and, unless allowPrivate, refuses to
// connect to any address that is not public. The check is on the IP the
// dialer is about to connect to, after DNS resolution, so a name that
// resolves (or re-resolves) to an internal address is refused too.
func newFetchClient(allowPrivate bool) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	if !allowPrivate {
		dialer.Control = refuseNonPublic
	}
	return &http.Client{
		Timeout: fetchTimeout,
		Transport: &http.Transport{
			DialContext:           dialer.DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 15 * time.Second,
			MaxIdleConns:          10,
			IdleConnTimeout:       30 * time.Second,
			ForceAttemptHTTP2:     true,
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= fetchRedirects {
				return fmt.Errorf("more than %d redirects", fetchRedirects)
			}
			return checkScheme(req.URL)
		},
	}
}

// errNotPublic is the refusal of a non-public address.
var errNotPublic = errors.New("refused: not a public internet address")

// refuseNonPublic is a net.Dialer Control function: it runs for the
// resolved address of every connection attempt.
func refuseNonPublic(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: %s", errNotPublic, host)
	}
	if !isPublic(ip) {
		return fmt.Errorf("%w: %s is a loopback, private, link-local or reserved address", errNotPublic, ip)
	}
	if ownAddress(ip) {
		return fmt.Errorf("%w: %s is an address of this machine", errNotPublic, ip)
	}
	return nil
}

// nonPublicPrefixes are the ranges netip's predicates leave out.
var nonPublicPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),     // "this network"
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),  // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"), // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),   // reserved, broadcast included
	// documentation (RFC 5737, RFC 3849): never a real public host
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("2001:db8::/32"),
}

var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// isPublic reports whether ip is a unicast address of the public internet.
func isPublic(ip netip.Addr) bool {
	ip = ip.Unmap()
	if nat64.Contains(ip) { // judge the IPv4 address it translates to
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte(b[12:]))
	}
	if !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() {
		return false
	}
	for _, p := range nonPublicPrefixes {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

func checkScheme(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("only http and https URLs can be fetched, not %q", u.Scheme)
	}
	if u.Host == "" {
		return errors.New("the URL has no host")
	}
	return nil
}

// maxURLLength bounds the URL fetch_url takes: a person approving it is
// shown all of it.
const maxURLLength = 2048

// fetchTarget decodes fetch_url's arguments strictly and checks the URL:
// http or https, a host, no user name or password (which can make a
// harmless-looking host the user name of another), at most maxURLLength.
func fetchTarget(raw json.RawMessage) (*url.URL, error) {
	var args struct {
		URL string `json:"url"`
	}
	if err := agent.DecodeArgs(raw, &args); err != nil {
		return nil, err
	}
	s := strings.TrimSpace(args.URL)
	if len(s) > maxURLLength {
		return nil, fmt.Errorf("the URL is longer than %d characters", maxURLLength)
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("not a URL: %w", err)
	}
	if u.User != nil {
		return nil, errors.New("URLs with a user name or password are refused")
	}
	if err := checkScheme(u); err != nil {
		return nil, err
	}
	return u, nil
}

// describeFetch shows a person what a fetch_url call will reach, from the
// parsed URL and whole: where it connects (scheme, host, port, with a
// non-ASCII host also in the punycode it resolves as) and what it asks for
// (path and query).
// displayHost is u's host as a person is shown it: an international
// name with its ASCII form after it, so that look-alike letters show.
func displayHost(u *url.URL) string {
	host := u.Hostname()
	if ascii, err := idna.Lookup.ToASCII(host); err == nil && ascii != host {
		host += " (" + ascii + ")"
	}
	return host
}

func describeFetch(raw json.RawMessage) (string, error) {
	u, err := fetchTarget(raw)
	if err != nil {
		return "", err
	}
	host := displayHost(u)
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nhost: %s\nport: %s\npath: %s", u.String(), host, port, cmp.Or(u.EscapedPath(), "/"))
	if u.RawQuery != "" {
		fmt.Fprintf(&b, "\nquery: %s", u.RawQuery)
	}
	return b.String(), nil
}

// fetch gets the URL and returns its title and text.
func fetch(ctx context.Context, client *http.Client, u *url.URL) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", fmt.Errorf("not a URL: %w", err)
	}
	req.Header.Set("User-Agent", "membot/1 (Telegram assistant; fetch_url)")
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("fetch: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", fmt.Errorf("the server answered %s", resp.Status)
	}
	contentType := resp.Header.Get("Content-Type")
	kind, _, _ := mime.ParseMediaType(contentType)
	if kind == "" {
		kind = "text/html" // most servers that say nothing send HTML
	}
	isHTML := kind == "text/html" || kind == "application/xhtml+xml"
	if !isHTML && !isTextual(kind) {
		return "", fmt.Errorf("the page is %s, not text", kind)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, fetchMaxBytes+1))
	if err != nil {
		return "", fmt.Errorf("read the page: %w", err)
	}
	cut := len(body) > fetchMaxBytes
	if cut {
		body = body[:fetchMaxBytes]
	}
	decoded, err := charset.NewReader(strings.NewReader(string(body)), contentType)
	if err != nil {
		return "", fmt.Errorf("decode the page: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\n", resp.Request.URL)
	if isHTML {
		title, text := htmlText(decoded)
		if title != "" {
			fmt.Fprintf(&b, "Title: %s\n", title)
		}
		b.WriteString("\n" + text)
	} else {
		text, _ := io.ReadAll(decoded)
		b.WriteString("\n" + strings.TrimSpace(string(text)))
	}
	if cut {
		fmt.Fprintf(&b, "\n[only the first %d bytes of the page were read]", fetchMaxBytes)
	}
	return b.String(), nil
}

// isTextual reports whether a media type is text a model can read.
func isTextual(kind string) bool {
	return strings.HasPrefix(kind, "text/") || kind == "application/json" || kind == "application/xml" ||
		strings.HasSuffix(kind, "+json") || strings.HasSuffix(kind, "+xml")
}

// ownAddress reports whether ip is one of this machine's own interface
// addresses (a public one too): a fetch there reaches the bot's own
// services, such as the metrics listener.
func ownAddress(ip netip.Addr) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return true // unknown: refuse rather than guess
	}
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr().Unmap() == ip.Unmap() {
			return true
		}
	}
	return false
}
