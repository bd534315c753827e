package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/telegramfake"
)

// loadConfig is one load run.
type loadConfig struct {
	DB        string // a database URL (see Prefilled)
	Prefilled bool   // run in DB as it is (seeded); else in a fresh database created on DB's server
	Keep      bool   // keep the fresh database afterwards
	Chats     int
	Messages  int // per chat, measured
	Warmup    int // per chat, before the measurement
	LLMDelay  time.Duration
	Bot       botSettings   // HistoryLimit, Workers and Extra; the rest is filled in
	Timeout   time.Duration // longest wait for one reply
	BotLog    io.Writer
	NoDrafts  bool // the fake Telegram does not know sendMessageDraft (an older Bot API server)
}

// loadResult is what a run measured.
type loadResult struct {
	Config       loadConfig
	RowsBefore   int64 // messages in the database when the run began (estimate)
	Turns        int
	Elapsed      time.Duration
	Latencies    []time.Duration // added latency of each measured turn, sorted
	Bot          botStats        // during the measured turns; MaxRSS is the peak of the whole run
	ServerCPU    time.Duration   // PostgreSQL's, during the measured turns (when ServerCPUOK)
	ServerCPUOK  bool
	LoadCPU      time.Duration // membench's own (the fakes and the chats), during the measured turns
	Problems     []string      // correctness failures; empty when every reply came once, in order
	RepliesTotal int
	// FirstDraft is, for each measured turn that showed a draft, how long
	// after its message reached Telegram the first draft (the "Thinking…"
	// placeholder) came, sorted; empty without drafts.
	FirstDraft []time.Duration
	// TelegramCalls counts the measured turns' calls to Telegram by method
	// (getUpdates left out).
	TelegramCalls map[string]int
}

// chatLoad is one simulated chat: it sends a message, waits for the reply,
// and sends the next.
type chatLoad struct {
	user    telegramfake.User
	replies chan telegramfake.Sent
	sent    int
	lat     []time.Duration
	sentAt  []time.Time // of each measured message
	replyAt []time.Time // when its reply showed whole
}

func (c *chatLoad) text(n int) string {
	return fmt.Sprintf("chat %d, message %d: what should I cook for dinner tonight?", c.user.ID, n)
}

// runLoad starts the fakes and the bot, drives the chats, and checks that
// every message got exactly one reply, in order.
func runLoad(ctx context.Context, cfg loadConfig) (*loadResult, error) {
	res := &loadResult{Config: cfg}
	dbURL := cfg.DB
	if !cfg.Prefilled {
		name := fmt.Sprintf("membench_%d", time.Now().UnixNano())
		var err error
		if dbURL, err = createDatabase(ctx, cfg.DB, name); err != nil {
			return nil, err
		}
		if !cfg.Keep {
			defer dropDatabase(context.WithoutCancel(ctx), cfg.DB, name)
		}
	}
	poolCfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	poolCfg.MaxConns = 1 // one server process of its own, left out of PostgreSQL's CPU time
	pool, err := pgxpool.NewWithConfig(ctx, poolCfg)
	if err != nil {
		return nil, fmt.Errorf("connect to the database: %w", err)
	}
	defer pool.Close()

	tg := telegramfake.New(benchToken)
	defer tg.Close()
	tg.NoDrafts(cfg.NoDrafts)
	llm := openaifake.New()
	defer llm.Close()
	llm.DiscardRequests()
	llm.RespondWith(func(req openai.ChatCompletionRequest) openaifake.Reply {
		r := openaifake.Echo(req)
		r.Delay = cfg.LLMDelay
		return r
	})

	chats, firstUpdate, err := prepareChats(ctx, pool, cfg, res)
	if err != nil {
		return nil, err
	}
	tg.StartUpdateIDsAfter(firstUpdate)
	strays := routeReplies(tg, chats)

	b := cfg.Bot
	b.TelegramURL, b.OpenAIURL, b.DatabaseURL = tg.URL(), llm.URL(), dbURL
	bot, err := startBot(b, cfg.BotLog)
	if err != nil {
		return nil, err
	}
	stopped := false
	defer func() {
		if !stopped {
			bot.Stop()
		}
	}()
	if err := waitReady(tg, bot); err != nil {
		return nil, err
	}

	if err := drive(tg, chats, cfg.Warmup, cfg, false); err != nil {
		res.Problems = append(res.Problems, err.Error())
		return res, nil
	}
	if err := waitIdle(ctx, pool, firstUpdate); err != nil {
		return nil, err
	}
	before, err := bot.Stats()
	if err != nil {
		return nil, err
	}
	cpuBefore := readCPU(ctx, pool)
	start := time.Now()
	if err := drive(tg, chats, cfg.Messages, cfg, true); err != nil {
		res.Problems = append(res.Problems, err.Error())
		return res, nil
	}
	for _, c := range chats {
		res.Latencies = append(res.Latencies, c.lat...)
	}
	res.Turns = len(res.Latencies)
	res.Elapsed = lastReply(tg.Sent()).Sub(start)
	res.FirstDraft, res.TelegramCalls = telegramActivity(tg.Calls(""), chats, start)
	// The last replies are out; their turns are done once marked done.
	if err := waitIdle(ctx, pool, firstUpdate); err != nil {
		return nil, err
	}
	after, err := bot.Stats()
	if err != nil {
		return nil, err
	}
	res.Bot = after.since(before)
	res.ServerCPU, res.ServerCPUOK, res.LoadCPU = readCPU(ctx, pool).since(cpuBefore)

	stopped = true
	if err := bot.Stop(); err != nil {
		res.Problems = append(res.Problems, err.Error())
	}
	slices.Sort(res.Latencies)
	res.RepliesTotal = messagesSent(tg.Sent())
	res.Problems = append(res.Problems, check(ctx, pool, chats, firstUpdate, res.RepliesTotal, strays.Load())...)
	return res, nil
}

// prepareChats picks the chats' ids: new ones in a fresh database, the
// seeded chats in a pre-filled one. It returns the chats and the highest
// update id already stored (the fake's ids start after it).
func prepareChats(ctx context.Context, pool *pgxpool.Pool, cfg loadConfig, res *loadResult) ([]*chatLoad, int64, error) {
	var ids []int64
	var lastUpdate int64
	if cfg.Prefilled {
		err := pool.QueryRow(ctx, `SELECT greatest((SELECT max(update_id) FROM updates), (SELECT max(update_id) FROM messages), 0),
			(SELECT reltuples::bigint FROM pg_class WHERE oid = 'messages'::regclass)`).Scan(&lastUpdate, &res.RowsBefore)
		if err != nil {
			return nil, 0, fmt.Errorf("read the pre-filled database (run membench seed first): %w", err)
		}
		rows, err := pool.Query(ctx, `SELECT DISTINCT chat_id FROM conversations ORDER BY chat_id LIMIT $1`, cfg.Chats)
		if err != nil {
			return nil, 0, fmt.Errorf("read the seeded chats: %w", err)
		}
		for rows.Next() {
			var id int64
			rows.Scan(&id)
			ids = append(ids, id)
		}
		if err := rows.Err(); err != nil {
			return nil, 0, fmt.Errorf("read the seeded chats: %w", err)
		}
	}
	next := int64(1_000_000_000) // above the seeder's ids
	for len(ids) < cfg.Chats {
		next++
		ids = append(ids, next)
	}
	chats := make([]*chatLoad, len(ids))
	for i, id := range ids {
		chats[i] = &chatLoad{
			user:    telegramfake.User{ID: id, FirstName: fmt.Sprintf("User %d", id), LanguageCode: "en"},
			replies: make(chan telegramfake.Sent, cfg.Warmup+cfg.Messages+8),
		}
	}
	return chats, lastUpdate, nil
}

// routeReplies hands each message the bot sends to its chat; it counts
// those for chats that wrote nothing, or far more than they wrote.
func routeReplies(tg *telegramfake.Server, chats []*chatLoad) *atomic.Int64 {
	byID := make(map[int64]*chatLoad, len(chats))
	for _, c := range chats {
		byID[c.user.ID] = c
	}
	strays := new(atomic.Int64)
	tg.OnSent(func(s telegramfake.Sent) {
		c := byID[s.ChatID]
		if c == nil {
			strays.Add(1)
			return
		}
		select {
		case c.replies <- s:
		default: // reported by check
			strays.Add(1)
		}
	})
	return strays
}

// waitReady waits until the bot polls Telegram.
func waitReady(tg *telegramfake.Server, bot *botProcess) error {
	deadline := time.After(2 * time.Minute)
	for len(tg.Calls("getUpdates")) == 0 {
		select {
		case <-bot.Done():
			return fmt.Errorf("the bot exited before it was ready: %v", bot.Err())
		case <-deadline:
			return errors.New("the bot did not start polling within 2 minutes")
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}

// awaitReply waits until the chat shows want and returns when it did. A
// streamed answer shows its beginning first, then is edited: texts that
// begin want are passed over; any other text is a wrong reply.
func (c *chatLoad) awaitReply(want string, timeout time.Duration) (time.Time, error) {
	deadline := time.After(timeout)
	for {
		select {
		case r := <-c.replies:
			if r.Text == want {
				return r.At, nil
			}
			if !strings.HasPrefix(want, r.Text) {
				return time.Time{}, fmt.Errorf("chat %d: reply %q, want %q (a reply lost, doubled or out of order)", c.user.ID, r.Text, want)
			}
		case <-deadline:
			return time.Time{}, fmt.Errorf("chat %d: no reply to message %d within %s", c.user.ID, c.sent, timeout)
		}
	}
}

// drive has every chat send n messages, each after the reply to the one
// before, and checks each reply; with record, it keeps the added latency.
func drive(tg *telegramfake.Server, chats []*chatLoad, n int, cfg loadConfig, record bool) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(chats))
	for _, c := range chats {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				c.sent++
				text := c.text(c.sent)
				sentAt := time.Now()
				tg.SendText(c.user, text)
				at, err := c.awaitReply("echo: "+text, cfg.Timeout)
				if err != nil {
					errs <- err
					return
				}
				if record {
					c.lat = append(c.lat, at.Sub(sentAt)-cfg.LLMDelay)
					c.sentAt, c.replyAt = append(c.sentAt, sentAt), append(c.replyAt, at)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs // the first problem, or nil
}

// telegramActivity counts the calls to Telegram from start on by method
// (getUpdates left out) and finds each measured turn's first draft.
func telegramActivity(calls []telegramfake.Call, chats []*chatLoad, start time.Time) ([]time.Duration, map[string]int) {
	counts := map[string]int{}
	drafts := map[string][]time.Time{} // by chat id, in order
	for _, c := range calls {
		if c.At.Before(start) || c.Method == "getUpdates" {
			continue
		}
		counts[c.Method]++
		if c.Method == "sendMessageDraft" || c.Method == "sendRichMessageDraft" {
			drafts[c.Params["chat_id"]] = append(drafts[c.Params["chat_id"]], c.At)
		}
	}
	var first []time.Duration
	for _, c := range chats {
		times := drafts[fmt.Sprint(c.user.ID)]
		for i, sent := range c.sentAt {
			for _, at := range times {
				if !at.Before(sent) && !at.After(c.replyAt[i]) {
					first = append(first, at.Sub(sent))
					break
				}
			}
		}
	}
	slices.Sort(first)
	return first, counts
}
