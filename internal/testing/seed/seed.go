// Package seed fills a membot database with a synthetic history shaped like
// a real one, fast (COPY): many users with one conversation each, a long
// tail of conversation lengths, a few conversations of 100k+ messages, the
// turns of all chats interleaved in time as they are in production, and
// what the bot writes beside the messages: the inbox row of every user
// message, the events of each turn and the model calls. membench seed and
// the memory benchmarks use it.
package seed

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/membot/membot/internal/stamp"
)

// Plan says how much to seed.
type Plan struct {
	Messages  int64 // rows of messages, about (a turn is 2 rows, or 5 with a tool call)
	Chats     int   // private chats, one user and one conversation each; 0: one per 200 messages
	Giants    int   // how many of the chats have GiantSize messages (the first chat ids)
	GiantSize int   // 0: 100,000
	Seed      uint64
	// Progress, when set, is called now and then with the message rows written so far.
	Progress func(rows int64)
}

// Result describes what was added.
type Result struct {
	FirstChatID, LastChatID int64 // the seeded chats (= their users' ids)
	Messages                int64
	Updates                 int64
	Events                  int64
	LLMCalls                int64
	Largest                 int64 // messages of the longest conversation
}

const defaultGiantSize = 100_000

// Fill adds the plan's history to the database, in one transaction: on
// failure nothing is left behind. Ids continue after what is already there.
func Fill(ctx context.Context, pool *pgxpool.Pool, plan Plan) (*Result, error) {
	if plan.GiantSize <= 0 {
		plan.GiantSize = defaultGiantSize
	}
	if plan.Chats <= 0 {
		plan.Chats = max(1, int(plan.Messages/200))
	}
	if plan.Giants > plan.Chats || int64(plan.Giants*plan.GiantSize) > plan.Messages {
		return nil, fmt.Errorf("seed: %d giants of %d messages do not fit in %d chats and %d messages",
			plan.Giants, plan.GiantSize, plan.Chats, plan.Messages)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	defer conn.Release()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))

	h, err := newHistory(ctx, tx, plan)
	if err != nil {
		return nil, err
	}
	if err := h.write(ctx, tx); err != nil {
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("seed: commit: %w", err)
	}
	// Fresh statistics and visibility map, as autovacuum would leave them.
	if _, err := pool.Exec(ctx, `VACUUM ANALYZE users, conversations, messages, updates, events, llm_calls`); err != nil {
		return nil, fmt.Errorf("seed: vacuum: %w", err)
	}
	return &h.res, nil
}

// history is the generated data, laid out before it is written.
type history struct {
	plan     Plan
	rng      *rand.Rand
	zipf     *rand.Zipf // content word ranks, for sentence
	firstID  int64      // chat and user ids start after it
	firstUpd int64      // update ids start after it
	lengths  []int      // planned messages per chat
	convs    [][16]byte
	order    []int32 // the chat of each turn, in time order
	start    time.Time
	span     time.Duration
	res      Result
}

func newHistory(ctx context.Context, tx pgx.Tx, plan Plan) (*history, error) {
	h := &history{plan: plan, rng: rand.New(rand.NewPCG(plan.Seed, 0x6d656d626f74)),
		start: time.Now().Add(-365 * 24 * time.Hour).UTC().Truncate(time.Second), span: 364 * 24 * time.Hour}
	err := tx.QueryRow(ctx, `SELECT greatest((SELECT max(telegram_user_id) FROM users), (SELECT max(chat_id) FROM conversations), 0),
		greatest((SELECT max(update_id) FROM updates), (SELECT max(update_id) FROM messages), 0)`).Scan(&h.firstID, &h.firstUpd)
	if err != nil {
		return nil, fmt.Errorf("seed: read the highest ids: %w", err)
	}
	h.res.FirstChatID, h.res.LastChatID = h.firstID+1, h.firstID+int64(plan.Chats)
	h.planLengths()
	h.planOrder()
	h.convs = make([][16]byte, plan.Chats)
	for i := range h.convs {
		h.convs[i] = h.uuid()
	}
	return h, nil
}

// planLengths gives the giants their size and spreads the other messages
// over the other chats with a Pareto (80/20) tail: most conversations are
// short, a few are long.
func (h *history) planLengths() {
	p := h.plan
	h.lengths = make([]int, p.Chats)
	rest := p.Messages - int64(p.Giants*p.GiantSize)
	weights := make([]float64, p.Chats)
	var sum float64
	for i := p.Giants; i < p.Chats; i++ {
		weights[i] = 1 / math.Pow(1-h.rng.Float64(), 1/1.16)
		sum += weights[i]
	}
	for i := range h.lengths {
		if i < p.Giants {
			h.lengths[i] = p.GiantSize
		} else {
			h.lengths[i] = max(2, int(float64(rest)*weights[i]/sum))
		}
		h.res.Largest = max(h.res.Largest, int64(h.lengths[i]))
	}
}

// rowsPerTurn is the average size of a turn: 2 rows, 5 for one in ten.
const rowsPerTurn = 2.3

// planOrder interleaves the chats' turns at random, as real chats write at
// the same time, so that a conversation's rows are spread over the table.
func (h *history) planOrder() {
	for chat, n := range h.lengths {
		for range max(1, int(math.Round(float64(n)/rowsPerTurn))) {
			h.order = append(h.order, int32(chat))
		}
	}
	h.rng.Shuffle(len(h.order), func(i, j int) { h.order[i], h.order[j] = h.order[j], h.order[i] })
}

func (h *history) uuid() [16]byte {
	var u [16]byte
	for i := 0; i < 16; i += 8 {
		v := h.rng.Uint64()
		for j := range 8 {
			u[i+j] = byte(v >> (8 * j))
		}
	}
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // variant 10
	return u
}

func (h *history) chatID(chat int) int64 { return h.firstID + 1 + int64(chat) }

// stemsTrigger fills messages.search_vector for inserts that leave it out.
const stemsTrigger = "messages_search_vector_insert"

// write copies the users, conversations and messages, then derives the
// inbox rows, events and model calls from the messages. The big tables'
// secondary indexes are dropped while they fill and built again after,
// which is much faster than keeping them up to date row by row.
func (h *history) write(ctx context.Context, tx pgx.Tx) (err error) {
	// The rows are consistent by construction: skip the per-row foreign key
	// checks when the role may (a superuser), keep them otherwise. That
	// role turns all ordinary triggers off, among them the one that stems
	// a message as the bot's inserts do (messages.search_vector, migration
	// 00026): it fires ALWAYS while this transaction seeds, and is put back
	// before the commit (a failed seed rolls both back).
	tx.Exec(ctx, `SAVEPOINT replica`)
	if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
		tx.Exec(ctx, `ROLLBACK TO SAVEPOINT replica`)
	} else {
		if _, err := tx.Exec(ctx, `ALTER TABLE messages ENABLE ALWAYS TRIGGER `+stemsTrigger); err != nil {
			return fmt.Errorf("seed: stem the messages: %w", err)
		}
		defer func() {
			if err == nil {
				_, err = tx.Exec(ctx, `ALTER TABLE messages ENABLE TRIGGER `+stemsTrigger)
			}
		}()
	}
	var indexes []string
	for _, table := range []string{"messages", "events", "llm_calls"} {
		defs, err := dropIndexes(ctx, tx, table)
		if err != nil {
			return err
		}
		indexes = append(indexes, defs...)
	}
	if err := h.copyUsers(ctx, tx); err != nil {
		return err
	}
	if err := h.copyMessages(ctx, tx); err != nil {
		return err
	}
	if err := h.deriveRows(ctx, tx); err != nil {
		return err
	}
	for _, def := range indexes {
		if _, err := tx.Exec(ctx, def); err != nil {
			return fmt.Errorf("seed: rebuild index: %w", err)
		}
	}
	return nil
}

// dropIndexes drops the table's indexes that back no constraint and returns
// the statements that create them again.
func dropIndexes(ctx context.Context, tx pgx.Tx, table string) ([]string, error) {
	rows, err := tx.Query(ctx, `SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
		FROM pg_index i WHERE i.indrelid = $1::regclass
		AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`, table)
	if err != nil {
		return nil, fmt.Errorf("seed: list indexes: %w", err)
	}
	var names, defs []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			return nil, fmt.Errorf("seed: list indexes: %w", err)
		}
		names, defs = append(names, name), append(defs, def)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("seed: list indexes: %w", err)
	}
	for _, name := range names {
		if _, err := tx.Exec(ctx, `DROP INDEX `+name); err != nil {
			return nil, fmt.Errorf("seed: drop index %s: %w", name, err)
		}
	}
	return defs, nil
}

func (h *history) copyUsers(ctx context.Context, tx pgx.Tx) error {
	users := make([][]any, len(h.lengths))
	convs := make([][]any, len(h.lengths))
	for chat := range h.lengths {
		id := h.chatID(chat)
		lang := "ru"
		if h.rng.IntN(3) == 0 {
			lang = "en"
		}
		users[chat] = []any{id, fmt.Sprintf("user%d", id), firstNames[h.rng.IntN(len(firstNames))], nil, lang, h.start, h.start.Add(h.span)}
		convs[chat] = []any{h.convs[chat], id, id, h.start}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"users"},
		[]string{"telegram_user_id", "username", "first_name", "last_name", "language_code", "created_at", "last_seen_at"},
		pgx.CopyFromRows(users)); err != nil {
		return fmt.Errorf("seed: copy users: %w", err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"conversations"},
		[]string{"id", "telegram_user_id", "chat_id", "created_at"}, pgx.CopyFromRows(convs)); err != nil {
		return fmt.Errorf("seed: copy conversations: %w", err)
	}
	return nil
}

var messageColumns = []string{"conversation_id", "role", "content", "tool_calls", "tool_call_id", "tool_name",
	"telegram_message_id", "update_id", "metadata", "created_at"}

func (h *history) copyMessages(ctx context.Context, tx pgx.Tx) error {
	src := &turnSource{h: h, tgIDs: make([]int64, len(h.lengths)), moscow: moscow()}
	n, err := tx.CopyFrom(ctx, pgx.Identifier{"messages"}, messageColumns, src)
	if err != nil {
		return fmt.Errorf("seed: copy messages: %w", err)
	}
	h.res.Messages = n
	return nil
}

// deriveRows writes what the bot writes beside the seeded messages: for
// each user message its inbox row (done, with the update's JSON as
// Telegram sends it) and its message_received event; for each answer its
// reply_sent event; for each assistant row its model call.
func (h *history) deriveRows(ctx context.Context, tx pgx.Tx) error {
	stampLen := len([]rune(stamp.Add(h.start, moscow(), "")))
	for _, step := range []struct {
		into  *int64
		sql   string
		extra []any
	}{
		{&h.res.Updates, updatesSQL, []any{stampLen + 1}},
		{&h.res.Events, eventsSQL, nil},
		{&h.res.LLMCalls, llmCallsSQL, nil},
	} {
		tag, err := tx.Exec(ctx, step.sql, append([]any{h.firstUpd}, step.extra...)...)
		if err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		*step.into = tag.RowsAffected()
	}
	return nil
}

// seededRows are the seeded messages (update ids after $1) with their chat.
const seededRows = `FROM messages m JOIN conversations c ON c.id = m.conversation_id
	JOIN users u ON u.telegram_user_id = c.telegram_user_id WHERE m.update_id > $1`

const updatesSQL = `INSERT INTO updates (update_id, chat_id, payload, digest, state, attempts, received_at, claimed_at, done_at)
SELECT update_id, chat_id, payload, md5(update_id::text || ':' || payload::text)::uuid, 'done', 1, at, at, at + interval '2 seconds'
FROM (SELECT m.update_id, c.chat_id, m.created_at AS at,
	jsonb_build_object('update_id', m.update_id, 'message', jsonb_build_object(
		'message_id', m.telegram_message_id, 'date', extract(epoch FROM m.created_at)::bigint,
		'from', jsonb_build_object('id', u.telegram_user_id, 'is_bot', false, 'first_name', u.first_name,
			'username', u.username, 'language_code', u.language_code),
		'chat', jsonb_build_object('id', c.chat_id, 'type', 'private', 'first_name', u.first_name, 'username', u.username),
		'text', substr(m.content, $2))) AS payload
` + seededRows + ` AND m.role = 'user') s`

const eventsSQL = `INSERT INTO events (occurred_at, type, telegram_user_id, chat_id, conversation_id, update_id, payload)
SELECT m.created_at, 'message_received', u.telegram_user_id, c.chat_id, m.conversation_id, m.update_id, '{"kind": "text"}'
` + seededRows + ` AND m.role = 'user'
UNION ALL
SELECT m.created_at, 'reply_sent', u.telegram_user_id, c.chat_id, m.conversation_id, m.update_id,
	jsonb_build_object('message_id', m.id, 'telegram_message_ids', jsonb_build_array(m.telegram_message_id), 'turn_ms', 1800)
` + seededRows + ` AND m.role = 'assistant' AND m.telegram_message_id IS NOT NULL`

const llmCallsSQL = `INSERT INTO llm_calls (created_at, telegram_user_id, chat_id, conversation_id, update_id,
	model, prompt_tokens, completion_tokens, latency_ms)
SELECT m.created_at, u.telegram_user_id, c.chat_id, m.conversation_id, m.update_id, m.metadata->>'model',
	(m.metadata->>'prompt_tokens')::int, (m.metadata->>'completion_tokens')::int, (m.metadata->>'latency_ms')::int
` + seededRows + ` AND m.role = 'assistant'`

func moscow() *time.Location {
	loc, err := time.LoadLocation("Europe/Moscow")
	if err != nil {
		return time.UTC
	}
	return loc
}
