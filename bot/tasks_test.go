package bot_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/membot/membot/internal/testing/openaifake"
)

// A task's run is a turn of its own: its prompt is the user's message,
// marked scheduled in the row's metadata, and its answer reaches the chat.
// Runs missed while the bot was down come to one, late, with a note; a
// restart runs nothing again.
func TestATaskRunsOnTimeAndOnceLateAfterDowntime(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	h.LLM.Script(openaifake.Reply{Content: "Hi."}, openaifake.Reply{Content: "Sunny, 20°."}, openaifake.Reply{Content: "Rain later."})
	h.Start()
	h.Say(jane, "hello") // jane is known to the bot: her name and language
	h.Stop()
	var id int64
	if err := h.DB.QueryRow(ctx, `INSERT INTO reminders (telegram_user_id, chat_id, text, due_at, kind, schedule, time_zone)
		VALUES ($1, $1, 'what is the weather?', now() + interval '1 second', 'task', '0 8 * * *', 'UTC') RETURNING id`, jane.ID).Scan(&id); err != nil {
		t.Fatal(err)
	}
	before := len(h.TG.SentTo(jane.ID))
	h.Start() // the scheduler wakes at the task's time
	if got := h.NextTo(jane.ID, before, "the task's run"); got.Text != "Sunny, 20°." {
		t.Fatalf("the run's answer = %q", got.Text)
	}
	req := h.LLM.Requests()[len(h.LLM.Requests())-1]
	if last := req.Messages[len(req.Messages)-1].Content; !strings.HasSuffix(last, "[scheduled task #"+strconv.FormatInt(id, 10)+"] what is the weather?") {
		t.Fatalf("the model got %q", last)
	}
	h.WaitCount(`SELECT count(*) FROM messages WHERE role = 'user' AND update_id < 0
		AND (metadata->'scheduled'->>'task_id')::bigint = $1 AND NOT metadata->'scheduled' ? 'late'`, 1, id)
	h.WaitCount(`SELECT count(*) FROM reminders WHERE id = $1 AND status = 'pending' AND runs = 1 AND due_at > now()`, 1, id)

	// Down over three occurrences: one run, late, with the note.
	h.Stop()
	h.DB.Exec(ctx, `UPDATE reminders SET schedule = '0 * * * *', due_at = now() - interval '3 hours' WHERE id = $1`, id)
	before = len(h.TG.SentTo(jane.ID))
	h.Start()
	note := h.NextTo(jane.ID, before, "the late run's note")
	if !strings.HasPrefix(note.Text, "⏰ The scheduled task “what is the weather?” was due at ") {
		t.Fatalf("note = %q", note.Text)
	}
	if got := h.NextTo(jane.ID, before+1, "the late run's answer"); got.Text != "Rain later." {
		t.Fatalf("the late run's answer = %q", got.Text)
	}
	h.WaitCount(`SELECT count(*) FROM messages WHERE role = 'user' AND (metadata->'scheduled'->>'late')::boolean`, 1)
	h.WaitCount(`SELECT count(*) FROM reminders WHERE id = $1 AND runs = 2 AND due_at > now()`, 1, id)

	// Another restart runs nothing again.
	h.Stop()
	before = len(h.TG.SentTo(jane.ID))
	h.Start()
	h.Say(jane, "/help")
	if got := h.TG.SentTo(jane.ID)[before:]; len(got) != 1 {
		t.Fatalf("after a restart: %q", got)
	}
	if n := h.Count(`SELECT count(*) FROM updates WHERE task_id = $1`, id); n != 2 {
		t.Fatalf("%d runs of the task", n)
	}
}
