package export

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/userdata"
)

var (
	started = time.Date(2030, 1, 2, 3, 4, 0, 0, time.UTC)
	conv    = userdata.Conversation{ID: "c0ffee00-0000-4000-8000-000000000001", TelegramUserID: 7, ChatID: 7,
		CreatedAt: started, Mode: "default"}
)

// walkOf is a Walk over rows of conv, as userdata.Store's walk visits them.
func walkOf(rows []memory.Message) Walk {
	return func(head func(userdata.Conversation, int) error, each func(*memory.Message) error) error {
		if err := head(conv, len(rows)); err != nil {
			return err
		}
		for i := range rows {
			if err := each(&rows[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// turn is one turn with a tool: the user's row, the call, its result,
// the answer and the note after it.
func turn() []memory.Message {
	at := func(min int) time.Time { return started.Add(time.Duration(min) * time.Minute) }
	return []memory.Message{
		{ID: 1, ConversationID: conv.ID, Role: memory.RoleUser, Content: "[Текущее время: 2030-01-02 06:05] what is 6*7? <html> & `code`",
			TelegramMessageID: 50, UpdateID: 900, WrittenAt: at(1), CreatedAt: at(2)},
		{ID: 2, ConversationID: conv.ID, Role: memory.RoleAssistant,
			ToolCalls: []memory.ToolCall{{ID: "call_1", Name: "calculator", Arguments: "{\"expression\":\"```6*7```\"}"}}, WrittenAt: at(2)},
		{ID: 3, ConversationID: conv.ID, Role: memory.RoleTool, Content: "42", ToolCallID: "call_1", ToolName: "calculator", WrittenAt: at(2)},
		{ID: 4, ConversationID: conv.ID, Role: memory.RoleAssistant, Content: "It is **42**.", Metadata: map[string]any{"model": "m"}, WrittenAt: at(3)},
		{ID: 5, ConversationID: conv.ID, Role: memory.RoleSystem, Content: "Tools used: calculator", WrittenAt: at(3)},
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// parsed is a JSON part as a machine reads it.
type parsed struct {
	Conversation map[string]any
	Messages     []map[string]any
}

func parse(t *testing.T, path string) parsed {
	t.Helper()
	var p parsed
	if err := json.Unmarshal([]byte(read(t, path)), &p); err != nil {
		t.Fatalf("%s does not parse: %v", path, err)
	}
	return p
}

func TestWriteKeepsEveryRowInBothFormats(t *testing.T) {
	t.Parallel()
	moscow := time.FixedZone("MSK", 3*3600)
	e, err := Write(walkOf(turn()), t.TempDir(), 1<<20, "en", moscow)
	if err != nil {
		t.Fatal(err)
	}
	if e.Total != 5 || e.Shown != 5 || e.Messages != 2 || e.Conversation != conv || len(e.Docs) != 2 {
		t.Fatalf("Export = total %d, shown %d, messages %d, %d docs; want 5, 5, 2 (the question and the answer), 2",
			e.Total, e.Shown, e.Messages, len(e.Docs))
	}
	md, js := e.Docs[0], e.Docs[1]
	if md.Ext != "md" || js.Ext != "json" || len(md.Parts) != 1 || len(js.Parts) != 1 {
		t.Fatalf("docs %s %v and %s %v; want one part of md, then json", md.Ext, md.Parts, js.Ext, js.Parts)
	}
	markdown := read(t, md.Parts[0])
	for _, want := range []string{
		"# membot conversation\n\n- id: " + conv.ID + "\n- started: 2030-01-02 06:04 (MSK)\n- mode: default\n- messages: 5\n",
		"\n## You · 2030-01-02 06:05\n\nwhat is 6*7? <html> & `code`\n", // the stamp taken off, the time Telegram's
		"\n## Bot · 2030-01-02 06:06 · tool calls\n\n`calculator`\n````json\n{\"expression\":\"```6*7```\"}\n````\n",
		"\n### tool calculator · 2030-01-02 06:06\n\n```\n42\n```\n",
		"\n## Bot · 2030-01-02 06:07\n\nIt is **42**.\n",
		"\n### system · 2030-01-02 06:07\n\nTools used: calculator\n",
	} {
		if !strings.Contains(markdown, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, markdown)
		}
	}
	p := parse(t, js.Parts[0])
	if p.Conversation["id"] != conv.ID || p.Conversation["chat_id"] != float64(7) || p.Conversation["mode"] != "default" {
		t.Errorf("conversation %v", p.Conversation)
	}
	if len(p.Messages) != 5 {
		t.Fatalf("%d messages in the JSON, want 5", len(p.Messages))
	}
	for i, m := range p.Messages {
		row := turn()[i]
		if m["id"] != float64(row.ID) || m["role"] != string(row.Role) || m["content"] != row.Content || m["conversation_id"] != conv.ID {
			t.Errorf("message %d = %v, want row %d", i, m, row.ID)
		}
		for _, column := range []string{"tool_calls", "tool_call_id", "tool_name", "telegram_message_id", "update_id", "metadata", "created_at", "written_at"} {
			if _, ok := m[column]; !ok {
				t.Errorf("message %d lacks %s", i, column)
			}
		}
	}
	if m := p.Messages[0]; m["telegram_message_id"] != float64(50) || m["update_id"] != float64(900) || m["tool_name"] != nil || m["tool_calls"] != nil {
		t.Errorf("the user row's columns: %v; want its ids, and null for what it has none of", m)
	}
	if m := p.Messages[2]; m["tool_call_id"] != "call_1" || m["tool_name"] != "calculator" {
		t.Errorf("the tool row's columns: %v", m)
	}
}

// filler is n assistant rows of about 200 bytes each.
func filler(n int) []memory.Message {
	rows := make([]memory.Message, n)
	for i := range rows {
		rows[i] = memory.Message{ID: int64(i + 1), ConversationID: conv.ID, Role: memory.RoleAssistant,
			Content: fmt.Sprintf("row %d %s", i+1, strings.Repeat("x", 200)), WrittenAt: started}
	}
	return rows
}

func TestALongConversationIsSplitIntoWholePartsAndCutPastMaxParts(t *testing.T) {
	t.Parallel()
	const limit = 8 << 10
	cases := []struct {
		name string
		rows int
		cut  bool
	}{
		{"split", 40, false}, // ~20 KB of JSON: more than one part, fewer than MaxParts
		{"cut", 1000, true},  // ~500 KB: MaxParts parts, then cut
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e, err := Write(walkOf(filler(c.rows)), t.TempDir(), limit, "en", time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			if (e.Shown < e.Total) != c.cut || e.Total != c.rows || e.Messages != e.Shown {
				t.Fatalf("%d of %d rows written (%d messages); cut: want %v", e.Shown, e.Total, e.Messages, c.cut)
			}
			md, js := e.Docs[0], e.Docs[1]
			if len(js.Parts) < 2 || c.cut && len(js.Parts) != MaxParts {
				t.Errorf("%d JSON parts, want 2 or more (%d when cut)", len(js.Parts), MaxParts)
			}
			for _, d := range e.Docs {
				if len(d.Parts) > MaxParts {
					t.Errorf("%d %s parts, over %d", len(d.Parts), d.Ext, MaxParts)
				}
				for i, path := range d.Parts {
					if size := len(read(t, path)); size > limit {
						t.Errorf("%s part %d is %d bytes, over %d", d.Ext, i+1, size, limit)
					}
				}
			}
			var ids []int64
			for i, path := range js.Parts {
				p := parse(t, path)
				if p.Conversation["id"] != conv.ID {
					t.Errorf("JSON part %d lacks the conversation", i+1)
				}
				for _, m := range p.Messages {
					ids = append(ids, int64(m["id"].(float64)))
				}
			}
			var markdown strings.Builder
			for i, path := range md.Parts {
				part := read(t, path)
				if !strings.HasPrefix(part, "# membot conversation\n") {
					t.Errorf("Markdown part %d starts %.40q", i+1, part)
				}
				markdown.WriteString(part)
			}
			if len(ids) != e.Shown {
				t.Fatalf("the JSON parts hold %d rows, the export says %d", len(ids), e.Shown)
			}
			for i, id := range ids {
				if id != int64(i+1) {
					t.Fatalf("JSON row %d is row %d: not the first rows in order", i+1, id)
				}
			}
			last := fmt.Sprintf("row %d ", e.Shown)
			if !strings.Contains(markdown.String(), last) || strings.Contains(markdown.String(), fmt.Sprintf("row %d ", e.Shown+1)) {
				t.Errorf("the Markdown does not end where the JSON does, at row %d", e.Shown)
			}
		})
	}
}

func TestAFailedWalkIsAnError(t *testing.T) {
	t.Parallel()
	away := errors.New("database away")
	walk := func(head func(userdata.Conversation, int) error, each func(*memory.Message) error) error {
		if err := head(conv, 2); err != nil {
			return err
		}
		if err := each(&filler(1)[0]); err != nil {
			return err
		}
		return away
	}
	if _, err := Write(walk, t.TempDir(), 1<<20, "en", time.UTC); !errors.Is(err, away) {
		t.Errorf("Write: %v, want the walk's error", err)
	}
}

func TestSendNamesAndCaptionsEachDocument(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	moscow := time.FixedZone("MSK", 3*3600)
	type doc struct{ file, path, caption string }
	cases := []struct {
		name string
		e    *Export
		want []doc
	}{
		{"one part each", &Export{Conversation: conv, Messages: 2, Docs: []*Doc{{Ext: "md", Parts: []string{"/a"}}, {Ext: "json", Parts: []string{"/b"}}}},
			[]doc{{"membot-conversation-2030-01-02-0604.md", "/a", en.ExportCaption(2)}, {"membot-conversation-2030-01-02-0604.json", "/b", ""}}},
		{"parts", &Export{Conversation: conv, Messages: 9, Docs: []*Doc{{Ext: "md", Parts: []string{"/a1", "/a2"}}, {Ext: "json", Parts: []string{"/b1", "/b2"}}}},
			[]doc{
				{"membot-conversation-2030-01-02-0604-part1-of-2.md", "/a1", en.ExportCaption(9) + "\n" + en.ExportPart(1, 2)},
				{"membot-conversation-2030-01-02-0604-part2-of-2.md", "/a2", en.ExportPart(2, 2)},
				{"membot-conversation-2030-01-02-0604-part1-of-2.json", "/b1", en.ExportPart(1, 2)},
				{"membot-conversation-2030-01-02-0604-part2-of-2.json", "/b2", en.ExportPart(2, 2)},
			}},
	}
	for _, c := range cases {
		var got []doc
		n, err := c.e.Send("en", moscow, func(file, path, caption string) error {
			got = append(got, doc{file, path, caption})
			return nil
		})
		if err != nil || n != len(c.want) || fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: sent %d, %v:\n%q\nwant\n%q", c.name, n, err, got, c.want)
		}
	}
	refused := errors.New("refused")
	n, err := cases[1].e.Send("en", moscow, func(file, _, _ string) error {
		if strings.Contains(file, "part2-of-2.md") {
			return refused
		}
		return nil
	})
	if !errors.Is(err, refused) || n != 1 {
		t.Errorf("a refused document: sent %d, %v; want 1 and the error", n, err)
	}
}

func TestDialogueListsEachMessageWithItsTime(t *testing.T) {
	t.Parallel()
	moscow := time.FixedZone("MSK", 3*3600)
	msgs := []memory.Message{
		{Role: memory.RoleUser, Content: "[Текущее время: 2030-01-02 06:05] один", WrittenAt: started},
		{Role: memory.RoleAssistant, Content: "echo:\n  один", WrittenAt: started.Add(time.Minute)},
		{Role: memory.RoleUser, Content: strings.Repeat("д", 300), WrittenAt: started.Add(2 * time.Minute)},
	}
	got := strings.Split(Dialogue(msgs, "ru", moscow), "\n")
	ru := texts.For("ru")
	want := []string{ru.HistoryHeader(3, "MSK"), "",
		"2030-01-02 06:04 " + ru.You + ": один",
		"2030-01-02 06:05 " + ru.Bot + ": echo: один",
		"2030-01-02 06:06 " + texts.Preview(ru.You+": "+strings.Repeat("д", 300), 200)}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Dialogue:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d `).MatchString(got[2]) {
		t.Errorf("line %q does not start with the time", got[2])
	}
	group := GroupDialogue(msgs[:2], "en", moscow)
	if !strings.Contains(group, " 06:04 один\n") || !strings.Contains(group, " 06:05 Bot: echo: один") {
		t.Errorf("in a group a user row names its author already, an answer is the bot's:\n%s", group)
	}
}

// /history lists the newest messages a line each: when each was written,
// in the bot's zone, and who wrote it; the stamp the model saw is not shown.
func ExampleDialogue() {
	at := time.Date(2030, 1, 2, 7, 5, 0, 0, time.UTC)
	msgs := []memory.Message{
		{Role: memory.RoleUser, Content: "[Текущее время: 2030-01-02 10:05] what is 6*7?", WrittenAt: at},
		{Role: memory.RoleAssistant, Content: "It is 42.", WrittenAt: at.Add(time.Minute)},
	}
	moscow, _ := time.LoadLocation("Europe/Moscow")
	fmt.Println(Dialogue(msgs, "en", moscow))
	// Output:
	// The last messages of this conversation (2), times in Europe/Moscow:
	//
	// 2030-01-02 10:05 You: what is 6*7?
	// 2030-01-02 10:06 Bot: It is 42.
}
