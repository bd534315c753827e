package export

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/testing/calltest"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/userdata"
)

// chatLog is one chat's conversation and the events kept of its exports.
type chatLog struct {
	rows   []memory.Message
	again  time.Time // when ExportAgain says the user may export again
	added  []memory.Event
	sent   []string // the documents' names, as sent
	refuse error    // what sending a document fails with
}

func (l *chatLog) Dialogue(_ context.Context, _ memory.Chat, limit int) ([]memory.Message, error) {
	return l.rows[max(len(l.rows)-limit, 0):], nil
}

func (l *chatLog) WalkCurrentTranscript(_ context.Context, _ memory.Chat, head func(userdata.Conversation, int) error, each func(*memory.Message) error) error {
	if len(l.rows) == 0 {
		return memory.ErrNotFound
	}
	return walkOf(l.rows)(head, each)
}

func (l *chatLog) ExportAgain(context.Context, int64, int, time.Time) (time.Time, error) {
	return l.again, nil
}

func (l *chatLog) AddEvents(_ context.Context, events ...memory.Event) error {
	l.added = append(l.added, events...)
	return nil
}

func (l *chatLog) SendDocument(_ context.Context, _ telegram.Chat, name, _, _ string) (int64, error) {
	if l.refuse != nil {
		return 0, l.refuse
	}
	l.sent = append(l.sent, name)
	return int64(len(l.sent)), nil
}

type clock struct{ now time.Time }

func (c clock) Now() time.Time       { return c.now }
func (c clock) Zone() *time.Location { return time.UTC }

func commandsOver(l *chatLog) Commands {
	return Commands{Transcripts: l, Events: l, Documents: l, Clock: clock{started.Add(time.Hour)}}
}

func TestExportSendsBothFormatsAndRecordsIt(t *testing.T) {
	t.Parallel()
	l := &chatLog{rows: turn()}
	r := &calltest.Recorder{}
	if err := commandsOver(l).Export(context.Background(), r.Call("")); err != nil {
		t.Fatal(err)
	}
	if len(l.sent) != 2 || !strings.HasSuffix(l.sent[0], ".md") || !strings.HasSuffix(l.sent[1], ".json") {
		t.Errorf("sent %q, want the Markdown and the JSON", l.sent)
	}
	if len(l.added) != 1 || l.added[0].Type != memory.EventExportSent || l.added[0].Payload["documents"] != 2 {
		t.Errorf("events %+v, want one export_sent of 2 documents", l.added)
	}
	if len(r.Replies) != 0 {
		t.Errorf("replies %q: the documents are the answer", r.Texts())
	}
}

func TestExportAnswers(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	ago := func(m int) time.Time { return started.Add(time.Hour - time.Duration(m)*time.Minute) }
	limited := ago(50).Add(time.Hour) // three exports in the hour, the oldest 50 minutes ago
	cases := []struct {
		name  string
		rows  []memory.Message
		again time.Time
		admin bool
		want  string
		sent  int
	}{
		{"an empty conversation", nil, time.Time{}, false, en.ExportEmpty, 0},
		{"over the hour's exports", turn(), limited, false, en.ExportLimit(DefaultPerHour, texts.Clock(limited, time.UTC)), 0},
		{"an admin is not limited", turn(), limited, true, "", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := &chatLog{rows: c.rows, again: c.again}
			r := &calltest.Recorder{}
			call := r.Call("")
			call.Admin = c.admin
			if err := commandsOver(l).Export(context.Background(), call); err != nil {
				t.Fatal(err)
			}
			if r.Last() != c.want || len(l.sent) != c.sent {
				t.Errorf("reply %q, %d sent; want %q, %d", r.Last(), len(l.sent), c.want, c.sent)
			}
		})
	}
}

func TestALongExportIsCutAndSaysSo(t *testing.T) {
	t.Parallel()
	var rows []memory.Message
	for i := range 40 {
		rows = append(rows, memory.Message{ID: int64(i + 1), Role: memory.RoleUser, Content: strings.Repeat("x", 400), WrittenAt: started})
	}
	l := &chatLog{rows: rows}
	x := commandsOver(l)
	x.PartBytes = 2000
	r := &calltest.Recorder{}
	if err := x.Export(context.Background(), r.Call("")); err != nil {
		t.Fatal(err)
	}
	// the JSON's rows are the larger: its MaxParts parts hold 8 rows
	if want := texts.For("en").ExportCut(8, 40, MaxParts, texts.ByteSize(2000)); len(l.sent) < MaxParts+1 || r.Last() != want {
		t.Errorf("%d sent, reply %q: want both formats and %q", len(l.sent), r.Last(), want)
	}
}

func TestARefusedDocumentIsToldInTheExportsWords(t *testing.T) {
	t.Parallel()
	l := &chatLog{rows: turn(), refuse: errors.New("Bad Request: file is too big")}
	err := commandsOver(l).Export(context.Background(), (&calltest.Recorder{}).Call(""))
	var told command.Told
	if !errors.As(err, &told) || told.Text("why") != texts.For("en").ExportRefused("why") || !errors.Is(err, l.refuse) {
		t.Errorf("err = %v, want the refusal told as ExportRefused", err)
	}
	if len(l.added) != 0 {
		t.Errorf("events %+v: an export not sent is not recorded", l.added)
	}
}

func TestHistory(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	rows := turn()
	cases := []struct {
		name, args string
		rows       []memory.Message
		group      bool
		want       string
	}{
		{"the default number", "", rows, false, Dialogue(rows, "en", time.UTC)},
		{"the last two", "2", rows, false, Dialogue(rows[3:], "en", time.UTC)},
		{"in a group", "2", rows, true, GroupDialogue(rows[3:], "en", time.UTC)},
		{"none yet", "", nil, false, en.HistoryEmpty},
		{"zero", "0", rows, false, en.HistoryUsage(historyMax)},
		{"past the most", "101", rows, false, en.HistoryUsage(historyMax)},
		{"no number", "ten", rows, false, en.HistoryUsage(historyMax)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &calltest.Recorder{}
			call := r.Call(c.args)
			if c.group {
				call = calltest.InGroup(call)
			}
			if err := commandsOver(&chatLog{rows: c.rows}).History(context.Background(), call); err != nil {
				t.Fatal(err)
			}
			if r.Last() != c.want {
				t.Errorf("reply = %q, want %q", r.Last(), c.want)
			}
		})
	}
}
