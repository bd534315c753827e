package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/seed"
	"github.com/membot/membot/internal/testing/telegramfake"
)

// TestMain lets the test binary be the bot process membench starts; run
// as tests, it fails when a request the model fake got broke the role
// invariant (openaifake.CheckRoles).
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "bot" {
		if err := runChild(); err != nil {
			fmt.Fprintln(os.Stderr, "membench bot:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(openaifake.Main(m))
}

// The CI smoke run: a few chats, a few messages each, in a fresh database
// and in a seeded one. It checks correctness (every message answered once,
// in order, and recorded), never timing.
func TestSmokeEveryMessageIsAnsweredOnceInOrder(t *testing.T) {
	ctx := context.Background()
	seededDB := pgtest.New(t) // with CI=true, no database is a failure
	pool, err := pgxpool.New(ctx, seededDB)
	if err != nil {
		t.Fatal(err)
	}
	_, err = seed.Fill(ctx, pool, seed.Plan{Messages: 3000, Chats: 20, Giants: 1, GiantSize: 1000})
	pool.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		db        string
		prefilled bool
	}{
		{"fresh database", pgtest.AdminURL(), false},
		{"seeded database", seededDB, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			cfg := loadConfig{DB: tc.db, Prefilled: tc.prefilled, Chats: 5, Messages: 8, Warmup: 1,
				Bot: botSettings{HistoryLimit: 30, Workers: 4}, Timeout: time.Minute, BotLog: &logs} // written until the bot has exited
			res, err := runLoad(ctx, cfg)
			if err != nil {
				t.Fatalf("%v\nbot log:\n%s", err, logs.String())
			}
			var out bytes.Buffer
			printReport(&out, res, true)
			t.Log("\n" + out.String())
			if len(res.Problems) > 0 || res.Turns != 40 || res.RepliesTotal != 45 {
				t.Fatalf("problems %q, %d turns measured, %d replies; want none, 40 and 45\nbot log:\n%s",
					res.Problems, res.Turns, res.RepliesTotal, logs.String())
			}
			if res.Bot.Statements == 0 || res.Bot.RoundTrips == 0 || res.Bot.CPU == 0 || res.Bot.MaxRSS == 0 {
				t.Errorf("the bot's counters were not reported: %+v", res.Bot)
			}
		})
	}
}

// drive and check see a reply lost, doubled or out of order: a stand-in
// for the bot answers through the fake's HTTP API, wrongly on purpose.
func TestTheCheckCatchesWrongReplies(t *testing.T) {
	for name, answer := range map[string]func(text string) []string{
		"doubled": func(text string) []string { return []string{text, text} },
		"stray":   func(text string) []string { return []string{text, "echo: an answer to nothing"} },
		"lost":    func(text string) []string { return nil },
	} {
		t.Run(name, func(t *testing.T) {
			tg := telegramfake.New(benchToken)
			defer tg.Close()
			chats := []*chatLoad{{user: telegramfake.User{ID: 7, FirstName: "Seven"}, replies: make(chan telegramfake.Sent, 8)}}
			strays := routeReplies(tg, chats)
			stop := make(chan struct{})
			defer close(stop)
			go standIn(tg, answer, stop)
			err := drive(tg, chats, 3, loadConfig{Timeout: time.Second}, false)
			extra := len(chats[0].replies) + int(strays.Load())
			if err == nil && extra == 0 {
				t.Fatalf("drive found nothing wrong with %s replies", name)
			}
		})
	}
}

// standIn polls the fake like a bot and answers each message with the
// texts answer makes of the right reply, "echo: <message>".
func standIn(tg *telegramfake.Server, answer func(string) []string, stop chan struct{}) {
	base := tg.URL() + "/bot" + benchToken + "/"
	offset := 0
	for {
		select {
		case <-stop:
			return
		default:
		}
		resp, err := http.PostForm(base+"getUpdates", url.Values{"offset": {fmt.Sprint(offset)}, "timeout": {"1"}})
		if err != nil {
			return
		}
		var body struct {
			Result []struct {
				UpdateID int `json:"update_id"`
				Message  struct {
					Chat struct{ ID int64 } `json:"chat"`
					Text string             `json:"text"`
				} `json:"message"`
			} `json:"result"`
		}
		json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		for _, u := range body.Result {
			offset = u.UpdateID + 1
			for _, text := range answer("echo: " + u.Message.Text) {
				r, err := http.PostForm(base+"sendMessage", url.Values{"chat_id": {fmt.Sprint(u.Message.Chat.ID)}, "text": {text}})
				if err == nil {
					r.Body.Close()
				}
			}
		}
	}
}
