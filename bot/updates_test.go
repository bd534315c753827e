package bot_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/wait"
)

// writer is Olga (600), who writes the updates of every kind; Jane, in a
// chat of her own, is answered after each.
var writer = telegramfake.User{ID: 600, FirstName: "Olga", Username: "olga", LanguageCode: "en"}

// everyUpdate is one update of every kind the Bot API (up to 10.3)
// documents, as Telegram sends it, and one of a kind newer than the bot:
// field is the update's field, body its value; served says what the bot
// does ("answer": a message to Olga's chat, "press": the press answered,
// "stop": a Stop press, read by the answer it stops, "member": the bot's
// own membership, handled by the gate of groups, "": nothing), and a
// dropped update's row says its kind.
var everyUpdate = []struct {
	field, body string
	served      string
}{
	{"message", `{"message_id": 11, "date": 1764300000, "chat": {"id": 600, "type": "private", "first_name": "Olga", "username": "olga"},
		"from": {"id": 600, "is_bot": false, "first_name": "Olga", "username": "olga", "language_code": "en"}, "text": "hello there"}`, "answer"},
	{"edited_message", `{"message_id": 11, "date": 1764300000, "edit_date": 1764300060,
		"chat": {"id": 600, "type": "private", "first_name": "Olga"}, "from": {"id": 600, "is_bot": false, "first_name": "Olga"}, "text": "hello there!"}`, "answer"},
	// Fields newer than the bot's library, and than the bot, are read past.
	{"message", `{"message_id": 12, "date": 1764300000, "chat": {"id": 600, "type": "private", "first_name": "Olga"},
		"from": {"id": 600, "is_bot": false, "first_name": "Olga", "is_premium": true}, "text": "with new fields",
		"link_preview_options": {"is_disabled": true}, "effect_id": "5104841245755180586", "paid_star_count": 0,
		"a_field_of_the_future": {"nested": [1, {"deeper": null}], "text": "ignored"}}`, "answer"},
	// A group message not addressed to the bot.
	{"message", `{"message_id": 13, "date": 1764300000, "chat": {"id": -100600, "type": "supergroup", "title": "Friends"},
		"from": {"id": 600, "is_bot": false, "first_name": "Olga"}, "text": "lunch at one?"}`, ""},
	{"channel_post", `{"message_id": 5, "date": 1764300000, "chat": {"id": -1001600, "type": "channel", "title": "Olga's news"},
		"sender_chat": {"id": -1001600, "type": "channel", "title": "Olga's news"}, "author_signature": "Olga", "text": "a post"}`, ""},
	{"edited_channel_post", `{"message_id": 5, "date": 1764300000, "edit_date": 1764300100,
		"chat": {"id": -1001600, "type": "channel", "title": "Olga's news"}, "sender_chat": {"id": -1001600, "type": "channel", "title": "Olga's news"}, "text": "a post, edited"}`, ""},
	{"business_connection", `{"id": "bc-1", "user": {"id": 600, "is_bot": false, "first_name": "Olga"}, "user_chat_id": 600, "date": 1764300000,
		"rights": {"can_reply": true, "can_read_messages": true}, "is_enabled": true}`, ""},
	{"business_message", `{"message_id": 21, "date": 1764300000, "business_connection_id": "bc-1",
		"chat": {"id": 700, "type": "private", "first_name": "Customer"}, "from": {"id": 700, "is_bot": false, "first_name": "Customer"}, "text": "is the shop open?"}`, ""},
	{"edited_business_message", `{"message_id": 21, "date": 1764300000, "edit_date": 1764300030, "business_connection_id": "bc-1",
		"chat": {"id": 700, "type": "private", "first_name": "Customer"}, "from": {"id": 700, "is_bot": false, "first_name": "Customer"}, "text": "is the shop open today?"}`, ""},
	{"deleted_business_messages", `{"business_connection_id": "bc-1", "chat": {"id": 700, "type": "private", "first_name": "Customer"}, "message_ids": [21, 22]}`, ""},
	{"message_reaction", `{"chat": {"id": -100600, "type": "supergroup", "title": "Friends"}, "message_id": 13,
		"user": {"id": 600, "is_bot": false, "first_name": "Olga"}, "date": 1764300000, "old_reaction": [],
		"new_reaction": [{"type": "emoji", "emoji": "👍"}, {"type": "custom_emoji", "custom_emoji_id": "5368324170671202286"}]}`, ""},
	{"message_reaction_count", `{"chat": {"id": -1001600, "type": "channel", "title": "Olga's news"}, "message_id": 5, "date": 1764300000,
		"reactions": [{"type": {"type": "emoji", "emoji": "🔥"}, "total_count": 3}, {"type": {"type": "paid"}, "total_count": 1}]}`, ""},
	{"inline_query", `{"id": "iq-1", "from": {"id": 600, "is_bot": false, "first_name": "Olga"}, "query": "cats", "offset": "", "chat_type": "sender",
		"location": {"latitude": 55.75, "longitude": 37.62}}`, ""},
	{"chosen_inline_result", `{"result_id": "r-1", "from": {"id": 600, "is_bot": false, "first_name": "Olga"}, "query": "cats",
		"inline_message_id": "BAAAAJ0RAAD8k3Iy3QYK5w"}`, ""},
	{"callback_query", `{"id": "cbq-message", "from": {"id": 600, "is_bot": false, "first_name": "Olga", "language_code": "en"},
		"message": {"message_id": 14, "date": 1764300000, "chat": {"id": 600, "type": "private", "first_name": "Olga"},
			"from": {"id": 1, "is_bot": true, "first_name": "membot", "username": "membot_test_bot"}, "text": "an old answer",
			"reply_markup": {"inline_keyboard": [[{"text": "Old", "callback_data": "legacy:1"}]]}},
		"chat_instance": "-8101234567890", "data": "legacy:1"}`, "press"},
	// The message is too old for the bot to see (an InaccessibleMessage: date 0).
	{"callback_query", `{"id": "cbq-inaccessible", "from": {"id": 600, "is_bot": false, "first_name": "Olga"},
		"message": {"chat": {"id": 600, "type": "private", "first_name": "Olga"}, "message_id": 3, "date": 0},
		"chat_instance": "-8101234567890", "data": "legacy:2"}`, "press"},
	// A button of an inline message: no message, only its inline_message_id.
	{"callback_query", `{"id": "cbq-inline", "from": {"id": 600, "is_bot": false, "first_name": "Olga"},
		"inline_message_id": "BAAAAJ0RAAD8k3Iy3QYK5w", "chat_instance": "-3920116544321", "data": "vote:1"}`, "press"},
	{"callback_query", `{"id": "cbq-game", "from": {"id": 600, "is_bot": false, "first_name": "Olga"},
		"inline_message_id": "BAAAAJ0RAAD8k3Iy3QYK5w", "chat_instance": "-3920116544321", "game_short_name": "snake"}`, "press"},
	{"shipping_query", `{"id": "sq-1", "from": {"id": 600, "is_bot": false, "first_name": "Olga"}, "invoice_payload": "order-7",
		"shipping_address": {"country_code": "RU", "state": "", "city": "Moscow", "street_line1": "Tverskaya 1", "street_line2": "", "post_code": "125009"}}`, ""},
	{"pre_checkout_query", `{"id": "pcq-1", "from": {"id": 600, "is_bot": false, "first_name": "Olga"}, "currency": "XTR", "total_amount": 50,
		"invoice_payload": "order-7"}`, ""},
	{"purchased_paid_media", `{"from": {"id": 600, "is_bot": false, "first_name": "Olga"}, "paid_media_payload": "album-3"}`, ""},
	{"poll", `{"id": "5379843219120", "question": "Tea or coffee?", "options": [{"text": "Tea", "voter_count": 1}, {"text": "Coffee", "voter_count": 2}],
		"total_voter_count": 3, "is_closed": false, "is_anonymous": true, "type": "regular", "allows_multiple_answers": false}`, ""},
	{"poll_answer", `{"poll_id": "5379843219120", "user": {"id": 600, "is_bot": false, "first_name": "Olga"}, "option_ids": [1]}`, ""},
	// A vote of a chat: no user at all.
	{"poll_answer", `{"poll_id": "5379843219120", "voter_chat": {"id": -1001600, "type": "channel", "title": "Olga's news"}, "option_ids": [0]}`, ""},
	{"my_chat_member", `{"chat": {"id": -100600, "type": "supergroup", "title": "Friends"}, "from": {"id": 600, "is_bot": false, "first_name": "Olga"},
		"date": 1764300000, "old_chat_member": {"status": "left", "user": {"id": 1, "is_bot": true, "first_name": "membot"}},
		"new_chat_member": {"status": "member", "user": {"id": 1, "is_bot": true, "first_name": "membot"}}}`, "member"},
	{"chat_member", `{"chat": {"id": -100600, "type": "supergroup", "title": "Friends"}, "from": {"id": 600, "is_bot": false, "first_name": "Olga"},
		"date": 1764300000, "old_chat_member": {"status": "member", "user": {"id": 700, "is_bot": false, "first_name": "Customer"}},
		"new_chat_member": {"status": "kicked", "until_date": 0, "user": {"id": 700, "is_bot": false, "first_name": "Customer"}},
		"via_join_request": false}`, ""},
	{"chat_join_request", `{"chat": {"id": -100600, "type": "supergroup", "title": "Friends"}, "from": {"id": 700, "is_bot": false, "first_name": "Customer"},
		"user_chat_id": 700, "date": 1764300000, "bio": "I sell tea"}`, ""},
	{"chat_boost", `{"chat": {"id": -1001600, "type": "channel", "title": "Olga's news"},
		"boost": {"boost_id": "boost-1", "add_date": 1764300000, "expiration_date": 1766900000,
			"source": {"source": "premium", "user": {"id": 600, "is_bot": false, "first_name": "Olga"}}}}`, ""},
	{"removed_chat_boost", `{"chat": {"id": -1001600, "type": "channel", "title": "Olga's news"}, "boost_id": "boost-1", "remove_date": 1766900000,
		"source": {"source": "gift_code", "user": {"id": 600, "is_bot": false, "first_name": "Olga"}}}`, ""},
	// The Stop button of a draft that is no longer shown: read by no answer, nothing to do.
	{"stopped_message_generation", `{"chat": {"id": 600, "type": "private", "first_name": "Olga"}, "draft_id": 7}`, "stop"},
	// A kind of update newer than the bot.
	{"guest_message_of_the_future", `{"message_id": 1, "date": 1764300000, "chat": {"id": 600, "type": "private"}, "text": "from the future"}`, ""},
}

// Every kind of update reaches the bot whole, by long polling and by the
// webhook: none makes it panic, each is stored and done once, at its first
// attempt (the bot's answer, the press answered, or dropped with its kind
// in updates.dropped), nothing of the dropped ones reaches the
// conversation, and after each the bot answers another chat's message.
func TestEveryKindOfUpdateIsReadWithoutAPanicAndTheBotGoesOn(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"polling", "webhook"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			send := h.TG.AddUpdate
			if mode == "webhook" {
				h.Env["MODE"], h.Env["WEBHOOK_URL"], h.Env["WEBHOOK_LISTEN"] = "webhook", "https://bot.example.test/hook", "127.0.0.1:0"
				h.Start()
				endpoint := "http://" + h.WaitLog(`msg="webhook server listening" addr=(\S+)`)[1] + "/hook"
				h.WaitLog(`msg="membot is running"`)
				send = func(field string, body map[string]any) int64 {
					id, raw := h.TG.NewUpdate(field, body)
					if code, err := h.TG.PostWebhook(endpoint, raw); err != nil || code != 200 {
						t.Fatalf("posting the %s update: %d, %v", field, code, err)
					}
					return id
				}
			} else {
				h.Start()
			}
			for i, row := range everyUpdate {
				var body map[string]any
				if err := json.Unmarshal([]byte(row.body), &body); err != nil {
					t.Fatalf("row %d (%s): %v", i, row.field, err)
				}
				before := len(h.TG.Messages(writer.ID))
				id := send(row.field, body)
				h.WaitDone(id)
				checkUpdateRow(h, i, row.field, row.served, id, before, body)
				ping := "ping after " + row.field
				if got := h.Expect(jane.ID, func() int64 { return send("message", telegramfake.TextMessage(jane.ID, "private", jane, ping)) }).Text; got != "echo: "+ping {
					t.Fatalf("row %d (%s): Jane's message got %q", i, row.field, got)
				}
			}
			if !h.Running() {
				t.Fatal("the bot stopped")
			}
			if n := h.Count(`SELECT count(*) FROM updates WHERE attempts <> 1 OR crashes <> 0 OR error IS NOT NULL`); n != 0 {
				t.Errorf("%d updates needed more than one attempt, or failed", n)
			}
		})
	}
}

// checkUpdateRow checks what the bot did with the update id of row i and
// what it stored of it.
func checkUpdateRow(h *harness, i int, field, served string, id int64, before int, body map[string]any) {
	t := h.T
	t.Helper()
	var state, errText, dropped string
	var attempts, crashes int
	if err := h.DB.QueryRow(t.Context(), `SELECT state, coalesce(error, ''), coalesce(dropped, ''), attempts, crashes FROM updates WHERE update_id = $1`, id).
		Scan(&state, &errText, &dropped, &attempts, &crashes); err != nil {
		t.Fatalf("row %d (%s): %v", i, field, err)
	}
	if state != "done" || errText != "" || attempts != 1 || crashes != 0 {
		t.Errorf("row %d (%s): state %s, error %q, attempts %d, crashes %d; want done at the first attempt", i, field, state, errText, attempts, crashes)
	}
	rows := h.Count(`SELECT count(*) FROM messages WHERE update_id = $1`, id)
	switch served {
	case "answer":
		h.WaitShown(writer.ID, before+1, wait.Timeout())
		if dropped != "" || rows == 0 {
			t.Errorf("row %d (%s): answered, but dropped %q, %d rows stored", i, field, dropped, rows)
		}
		return
	case "press":
		query := body["id"].(string)
		if _, ok := h.TG.WaitCall("answerCallbackQuery", wait.Timeout(), func(c telegramfake.Call) bool { return c.Params["callback_query_id"] == query }); !ok {
			t.Errorf("row %d (%s): the press %s was not answered", i, field, query)
		}
		if _, inline := body["inline_message_id"]; inline != strings.HasPrefix(dropped, "callback_query: ") {
			t.Errorf("row %d (%s): dropped %q; want it said of a button of an inline message only", i, field, dropped)
		}
	case "stop", "member":
		if dropped != "" {
			t.Errorf("row %d (%s): the bot's own kind, but dropped %q", i, field, dropped)
		}
	default:
		if !strings.HasPrefix(dropped, field+": ") {
			t.Errorf("row %d (%s): dropped %q, want the update's kind and why", i, field, dropped)
		}
	}
	if rows != 0 {
		t.Errorf("row %d (%s): %d rows stored in the conversation", i, field, rows)
	}
	if got := len(h.TG.Messages(writer.ID)); got != before {
		t.Errorf("row %d (%s): %d messages sent to Olga", i, field, got-before)
	}
}

// A press on a button of someone else's private chat (a forged update:
// Telegram shows a private chat's buttons to its owner only) is refused
// with a short notice, whatever the button: Jane can neither delete Ivan's
// task nor open a topic in his chat.
func TestAPressOnAButtonOfSomeoneElsesPrivateChatIsRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	if got := schedule(h, ivan, "t1", `{"prompt":"Tell me the weather in Kazan","schedule":"every day at 8:00"}`); !strings.HasPrefix(got, "Task #1 scheduled") {
		t.Fatalf("schedule_task = %q", got)
	}
	h.Say(ivan, "/tasks")
	list := h.Last(ivan.ID)
	before := len(h.TG.Messages(ivan.ID))
	for _, data := range []string{"task:delete:1", "task:pause:1", "thread:new", "legacy:1"} {
		if got := h.Press(jane, list, data); got != "This button is not yours." {
			t.Errorf("Jane's press of %s in Ivan's chat: %q", data, got)
		}
	}
	h.WaitIdle()
	if n := h.Count(`SELECT count(*) FROM reminders WHERE id = 1 AND status = 'pending'`); n != 1 {
		t.Error("Ivan's task was changed by Jane's press")
	}
	if calls := h.TG.Calls("createForumTopic"); len(calls) != 0 || len(h.TG.Messages(ivan.ID)) != before {
		t.Errorf("Jane's presses acted in Ivan's chat: %d topics, %d messages", len(calls), len(h.TG.Messages(ivan.ID))-before)
	}
	// Ivan's own press still works.
	if got := h.Press(ivan, list, "task:pause:1"); got != "Приостановлена." {
		t.Fatalf("Ivan's own press: %q", got)
	}
}

// An update of a shape Telegram never sends (a forged or broken one) is
// given up at its first attempt with why, and the bot goes on: no panic,
// no retry.
func TestAnUpdateOfAShapeTelegramNeverSendsIsGivenUpAtOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	for _, raw := range []string{
		`{"update_id": %d, "message": {"message_id": 1, "date": 1764300000, "from": {"id": 600, "is_bot": false, "first_name": "Olga"}, "text": "no chat"}}`,
		`{"update_id": %d, "message": {"message_id": 2, "date": 1764300000, "chat": null, "from": {"id": 600, "is_bot": false, "first_name": "Olga"}, "text": "null chat"}}`,
		`{"update_id": %d, "callback_query": {"id": "cbq-nobody", "chat_instance": "1", "data": "legacy:1",
			"message": {"message_id": 3, "date": 1764300000, "chat": {"id": 600, "type": "private"}}}}`,
		`{"update_id": %d, "edited_message": "not an object"}`,
	} {
		id, _ := h.TG.NewUpdate("message", map[string]any{}) // the next id, in Telegram's order
		h.TG.AddRawUpdate(fmt.Sprintf(raw, id))
		h.WaitDone(id)
		if n := h.Count(`SELECT count(*) FROM updates WHERE update_id = $1 AND attempts = 1 AND crashes = 0 AND error LIKE 'decode update: %'`, id); n != 1 {
			t.Errorf("update %d was not given up at its first attempt with why", id)
		}
		ping := fmt.Sprintf("ping after update %d", id)
		if got := h.Say(jane, ping); got != "echo: "+ping {
			t.Fatalf("update %d: Jane's message got %q", id, got)
		}
	}
}
