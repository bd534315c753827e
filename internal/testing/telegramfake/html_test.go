package telegramfake

import (
	"strings"
	"testing"
)

func TestParseHTMLLikeTelegram(t *testing.T) {
	text, entities, err := ParseHTML(`😀 <b>bold <i>both</i></b> &lt;tag&gt; &amp; &quot;q&quot; &#33; <a href="https://x.org/?a=1&amp;b=2">link</a>` +
		"\n<pre><code class=\"language-go\">if a &lt; b {}</code></pre>")
	if err != nil {
		t.Fatal(err)
	}
	if want := "😀 bold both <tag> & \"q\" ! link\nif a < b {}"; text != want {
		t.Fatalf("text = %q, want %q", text, want)
	}
	got := map[string]Entity{}
	for _, e := range entities {
		got[e.Type] = e
	}
	if e := got["bold"]; e.Offset != 3 || e.Text != "bold both" { // the emoji is two UTF-16 units
		t.Errorf("bold = %+v", e)
	}
	if e := got["italic"]; e.Text != "both" {
		t.Errorf("italic = %+v", e)
	}
	if e := got["text_link"]; e.URL != "https://x.org/?a=1&b=2" || e.Text != "link" {
		t.Errorf("link = %+v", e)
	}
	if e := got["pre"]; e.Language != "go" || e.Text != "if a < b {}" {
		t.Errorf("pre = %+v", e)
	}
	if _, ok := got["code"]; ok {
		t.Error("the code inside pre became an entity of its own")
	}

	for _, bad := range []string{"a < b", "a > b", "fish & chips", "<div>x</div>", "<b>open", "</b>", "<b><i>x</b></i>",
		"<code><b>x</b></code>", "<a>no href</a>", "&nbsp;"} {
		if _, _, err := ParseHTML(bad); err == nil || !strings.HasPrefix(err.Error(), "Bad Request: can't parse entities: ") {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}
