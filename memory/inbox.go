package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// InboxUpdate is one Telegram update in the durable inbox.
type InboxUpdate struct {
	UpdateID int64
	ChatID   int64
	Payload  []byte // the update's JSON, as Telegram sent it
	Attempts int    // how many times it has been claimed, this time included
	// Shown are the Telegram messages an earlier attempt showed a streamed
	// answer in before it was cut short (see NoteShown).
	Shown []int64
	// StoredAs is set by SaveAndClaim: the id the update was stored under
	// (UpdateID, or a new one when an earlier update held that id); 0 when
	// it was there already.
	StoredAs int64
}

// Delivery records what was sent to Telegram for an assistant row.
type Delivery struct {
	MessageID          int64   // the assistant row
	TelegramMessageIDs []int64 // the messages it was sent as, in order
	// ShownAs is how it was shown: "rich" (a rich message) or "html"
	// (Telegram HTML, or its plain text); kept in metadata.shown_as.
	ShownAs string
}

// SaveUpdates stores updates in the inbox, atomically. Updates already there
// are left as they are, so Telegram may deliver an update twice. Payloads
// are stored as sent, except that what PostgreSQL refuses (NUL, invalid
// UTF-8) is cleaned out.
func (s *Store) SaveUpdates(ctx context.Context, updates []InboxUpdate) error {
	_, err := s.SaveAndClaim(ctx, updates, 0, nil)
	return err
}

// ErrUpdateRefused is returned when an update could be stored neither
// under its own id nor under a new one (another process took that one at
// the same moment): storing it again succeeds.
var ErrUpdateRefused = errors.New("update refused by the inbox")

// saveUpdateSQL stores update $2 (Telegram's id) of bot $1 in chat $3
// unless the same update of the same bot is there already (bot_id and
// digest). When an earlier update holds its id — another bot's, or one from
// before the Bot API's ids started again — it is stored under the next free
// id, after every other, so the chat's order holds. An id is held while any
// row names it: the inbox's, or (after the retention purge took the inbox
// row) a message, rollback or once-per-update event of that update, which
// the new update would otherwise be taken for. It returns the id it was
// stored under (NULL when not stored) and whether it was there already.
var saveUpdateSQL = saveUpdateStatement(`CASE WHEN `+updateIDHeldSQL+` THEN `+nextUpdateIDSQL+` ELSE $2 END`, ``)

// saveNewUpdateSQL is saveUpdateSQL for an update whose id is above every
// id the inbox freed (migration 00025): then only the inbox's primary key
// and the messages can hold it. It stores nothing when that is not so, or
// when the id is held (neither stored nor there): saveUpdateSQL then
// stores it, a round trip later. Telegram's ids grow, so that is every
// update while they do; after they start again (or with another bot's
// ids), the updates at or below the bound take the second round trip
// until the ids pass it. The messages are asked too because the purge
// may be deleting the inbox's row of that id at this very moment (the
// bound is raised when it commits, after this statement read it): the
// turn must not take the new update for the old one's retry.
var saveNewUpdateSQL = saveUpdateStatement(`$2`, ` AND $2 > (SELECT max(through) FROM updates_freed)
	AND NOT EXISTS (SELECT 1 FROM messages WHERE update_id = $2)`)

// updateDigest is what Telegram sent for update $2 ($4), digested.
// The lookup of it is written with the expression itself, not v's column:
// a prepared statement's generic plan, made when the inbox was empty,
// took v's digest for a join filter and read every update of the bot on
// each save (0.25 ms a save after 1,000 updates, growing).
const updateDigest = `md5($2::bigint::text || ':' || $4::jsonb::text)::uuid`

// saveUpdateStatement is the statement that stores update $2 under the id
// id, when condition holds too.
func saveUpdateStatement(id, condition string) string {
	return `WITH v AS (
	SELECT $4::jsonb AS payload, ` + updateDigest + ` AS digest
), there AS (
	SELECT 1 FROM updates WHERE updates.bot_id = $1 AND updates.digest = ` + updateDigest + `
), stored AS (
	INSERT INTO updates (bot_id, update_id, chat_id, payload, digest)
	SELECT $1, ` + id + `, $3, v.payload, v.digest
	FROM v WHERE NOT EXISTS (SELECT 1 FROM there)` + condition + `
	ON CONFLICT DO NOTHING
	RETURNING update_id
)
SELECT (SELECT update_id FROM stored), EXISTS (SELECT 1 FROM there)`
}

// onceEventTypes are the events stored once per update (events_once_per_update).
var onceEventTypes = []string{"message_received", "reply_sent", "access_denied", "rate_limited"}

// updateIDHeldSQL tells whether a row names update id $2 (each an index probe).
var updateIDHeldSQL = func() string {
	held := []string{`EXISTS (SELECT 1 FROM updates WHERE update_id = $2)`,
		`EXISTS (SELECT 1 FROM messages WHERE update_id = $2)`,
		`EXISTS (SELECT 1 FROM conversation_rollbacks WHERE update_id = $2)`}
	for _, t := range onceEventTypes {
		held = append(held, `EXISTS (SELECT 1 FROM events WHERE type = '`+t+`' AND update_id = $2)`)
	}
	return "(" + strings.Join(held, " OR ") + ")"
}()

// nextUpdateIDSQL is the id after every id any row names.
var nextUpdateIDSQL = func() string {
	highest := []string{`(SELECT max(update_id) FROM updates)`, `(SELECT max(update_id) FROM messages)`,
		`(SELECT max(update_id) FROM conversation_rollbacks)`}
	for _, t := range onceEventTypes {
		highest = append(highest, `(SELECT max(update_id) FROM events WHERE type = '`+t+`')`)
	}
	return "(greatest(" + strings.Join(highest, ", ") + ") + 1)"
}()

// queueSave adds to batch the statement sql (saveNewUpdateSQL or
// saveUpdateSQL) for each of updates. Each update's StoredAs is set once
// the batch has run; those neither stored nor there already go to *unsaved.
func (s *Store) queueSave(batch *pgx.Batch, sql string, updates []*InboxUpdate, unsaved *[]*InboxUpdate) error {
	for _, u := range updates {
		payload, err := cleanJSON(u.Payload)
		if err != nil {
			return fmt.Errorf("save update %d: %w", u.UpdateID, err)
		}
		batch.Queue(sql, s.botID.Load(), u.UpdateID, u.ChatID, string(payload)).QueryRow(func(row pgx.Row) error {
			var storedAs *int64
			var there bool
			if err := row.Scan(&storedAs, &there); err != nil {
				return err
			}
			switch {
			case storedAs != nil:
				u.StoredAs = *storedAs
			case !there:
				*unsaved = append(*unsaved, u)
			}
			return nil
		})
	}
	return nil
}

// AdoptUpdates tells the store which bot it serves (its Telegram id, from
// getMe): updates are saved as this bot's. The updates stored before the
// inbox knew bots (bot_id 0) become this bot's, so that one delivered
// again across the upgrade is still known.
func (s *Store) AdoptUpdates(ctx context.Context, botID int64) (adopted int64, err error) {
	s.botID.Store(botID)
	tag, err := s.pool.Exec(ctx, `UPDATE updates SET bot_id = $1 WHERE bot_id = 0`, botID)
	if err != nil {
		return 0, fmt.Errorf("adopt updates: %w", translate(err))
	}
	return tag.RowsAffected(), nil
}

// claimSQL takes the oldest unfinished update of chat $1 for owner $2. It
// takes nothing while that update is being handled by a live owner, so a
// chat's updates are handled one at a time, in order, by however many
// processes. FOR UPDATE (not SKIP LOCKED) makes a concurrent claimer wait and
// then see the row as taken, rather than skip ahead to the chat's next update.
const claimSQL = claimHeadSQL + `
  AND (u.state = 'pending' OR u.owner_id = $2 OR NOT membot_owner_alive(u.owner_id))` + claimReturning

const claimHeadSQL = `UPDATE updates u
SET state = 'processing', owner_id = $2, claimed_at = now(), attempts = u.attempts + 1
FROM (SELECT update_id FROM updates WHERE chat_id = $1 AND state <> 'done'
      ORDER BY update_id LIMIT 1 FOR UPDATE) head
WHERE u.update_id = head.update_id`

const claimReturning = `
RETURNING u.update_id, u.chat_id, u.payload::text, u.attempts, coalesce(u.shown_message_ids, '{}')`

// ClaimNext claims the chat's oldest unfinished update for owner. It returns
// nil when the chat has none, or when another live process is handling it.
// owner must not be claiming for this chat elsewhere at the same time.
func (s *Store) ClaimNext(ctx context.Context, chatID int64, owner int32) (*InboxUpdate, error) {
	u, err := scanClaim(s.pool.QueryRow(ctx, claimSQL, chatID, owner))
	if err != nil {
		return nil, fmt.Errorf("claim update: %w", translate(err))
	}
	return u, nil
}

// scanClaim reads the row claimSQL returns: nil when it claimed nothing.
func scanClaim(row pgx.Row) (*InboxUpdate, error) {
	var u InboxUpdate
	var payload string
	err := row.Scan(&u.UpdateID, &u.ChatID, &payload, &u.Attempts, &u.Shown)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	u.Payload = []byte(payload)
	return &u, nil
}

// replySentSQL logs the delivery of assistant row $1, the answer to update
// $2, with how long the update waited and was worked on in all.
const replySentSQL = `INSERT INTO events (type, telegram_user_id, chat_id, conversation_id, update_id, payload)
SELECT 'reply_sent',
	coalesce((SELECT telegram_user_id FROM events WHERE type = 'message_received' AND update_id = $2), c.telegram_user_id),
	c.chat_id, m.conversation_id, $2, jsonb_build_object('message_id', m.id, 'telegram_message_ids', $3::bigint[],
		'turn_ms', (SELECT (extract(epoch FROM clock_timestamp() - received_at) * 1000)::bigint FROM updates WHERE update_id = $2))
FROM messages m JOIN conversations c ON c.id = m.conversation_id
WHERE m.id = $1
` + eventOncePerUpdate

// NoteShown records the Telegram messages an answer to the update shows in
// while it is being written, before it is stored: should this attempt be
// cut short, the next one finds them in InboxUpdate.Shown.
func (s *Store) NoteShown(ctx context.Context, updateID int64, telegramMessageIDs []int64) error {
	if _, err := s.pool.Exec(ctx, `UPDATE updates SET shown_message_ids = $2 WHERE update_id = $1`,
		updateID, telegramMessageIDs); err != nil {
		return fmt.Errorf("note shown messages: %w", translate(err))
	}
	return nil
}

// Complete marks an update handled and, in the same transaction, records
// where its answer was delivered. errText notes why it was given up on.
func (s *Store) Complete(ctx context.Context, updateID int64, d *Delivery, errText string) error {
	batch := &pgx.Batch{}
	queueComplete(batch, updateID, d, errText)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("complete update: %w", translate(err))
	}
	return nil
}

// queueComplete adds the statements of Complete to batch.
func queueComplete(batch *pgx.Batch, updateID int64, d *Delivery, errText string) {
	if d != nil && len(d.TelegramMessageIDs) > 0 {
		batch.Queue(`UPDATE messages SET telegram_message_id = $2,
			metadata = metadata || jsonb_strip_nulls(jsonb_build_object('telegram_message_ids', $3::bigint[],
				'shown_as', NULLIF($4, ''))) WHERE id = $1`,
			d.MessageID, d.TelegramMessageIDs[0], d.TelegramMessageIDs, d.ShownAs)
		batch.Queue(replySentSQL, d.MessageID, updateID, d.TelegramMessageIDs)
	}
	batch.Queue(`UPDATE updates SET state = 'done', done_at = now(), error = NULLIF($2, '') WHERE update_id = $1`,
		updateID, cleanText(errText))
}

// UnfinishedChats lists the chats that have updates not yet done.
func (s *Store) UnfinishedChats(ctx context.Context) ([]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT chat_id FROM updates WHERE state <> 'done'`)
	if err != nil {
		return nil, fmt.Errorf("unfinished chats: %w", translate(err))
	}
	chats, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("unfinished chats: %w", translate(err))
	}
	return chats, nil
}

// Backlog is the work left behind: the inbox's unfinished updates and the
// conversations /new left for the purger.
type Backlog struct {
	Unfinished int           // updates not yet done
	OldestAge  time.Duration // how long the oldest of them has waited
	ToPurge    int           // conversations reset by /new, not yet deleted
	PurgeAge   time.Duration // how long the oldest of them has waited
}

// InboxBacklog measures the backlog (partial indexes keep it cheap).
func (s *Store) InboxBacklog(ctx context.Context) (Backlog, error) {
	var b Backlog
	var seconds, purgeSeconds float64
	err := s.pool.QueryRow(ctx, `SELECT count(*), coalesce(extract(epoch FROM now() - min(received_at)), 0)::float8,
		(SELECT count(*) FROM conversations WHERE reset_at IS NOT NULL),
		(SELECT coalesce(extract(epoch FROM now() - min(reset_at)), 0)::float8 FROM conversations WHERE reset_at IS NOT NULL)
		FROM updates WHERE state <> 'done'`).Scan(&b.Unfinished, &seconds, &b.ToPurge, &purgeSeconds)
	if err != nil {
		return b, fmt.Errorf("inbox backlog: %w", translate(err))
	}
	b.OldestAge = time.Duration(seconds * float64(time.Second))
	b.PurgeAge = time.Duration(purgeSeconds * float64(time.Second))
	return b, nil
}
