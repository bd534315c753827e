package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/membot/membot/memory/pg"
)

// Update is one Telegram update in the durable inbox.
type Update struct {
	UpdateID int64
	ChatID   int64
	Payload  []byte // the update's JSON, as Telegram sent it
	Attempts int    // how many times it has been claimed, this time included
	// Crashes is how many runs died with the update in hand (the claim
	// that took it over from each counted it).
	Crashes int
	// Shown are the Telegram messages an earlier attempt showed or sent
	// its answer in before it was cut short (see NoteShown).
	Shown []int64
	// StoredAs is set by SaveAndClaim: the id the update was stored under
	// (UpdateID, or a new one when an earlier update held that id); 0 when
	// it was there already.
	StoredAs int64
	// Run, when set, says the update is a scheduled task's run (TaskRun),
	// which the scheduler enqueued: the inbox row names the task.
	Run *TaskRun
}

// Delivery records what was sent to Telegram for an assistant row.
type Delivery struct {
	MessageID          int64   // the assistant row
	TelegramMessageIDs []int64 // the messages it was sent as, in order
	// ShownAs is how it was shown: "rich" (a rich message) or "html"
	// (Telegram HTML, or its plain text); kept in metadata.shown_as.
	ShownAs string
	// Dropped, when set, says the update was not served, and why (its
	// kind and the reason): kept in updates.dropped.
	Dropped string
}

// SaveUpdates stores updates in the inbox, atomically. Updates already there
// are left as they are, so Telegram may deliver an update twice. Payloads
// are stored as sent, except that what PostgreSQL refuses (NUL, invalid
// UTF-8) is cleaned out.
func (s *Store) SaveUpdates(ctx context.Context, updates []Update) error {
	_, err := s.SaveAndClaim(ctx, updates, 0, nil)
	return err
}

// ErrUpdateRefused is returned when an update could be stored neither
// under its own id nor under a new one (another process took that one at
// the same moment): storing it again succeeds.
var ErrUpdateRefused = errors.New("update refused by the inbox")

// saveUpdateParams are the arguments of saveUpdate and saveNewUpdate.
type saveUpdateParams struct {
	BotID    int64  `db:"bot_id"`
	UpdateID int64  `db:"update_id"`
	ChatID   int64  `db:"chat_id"`
	Payload  string `db:"payload"`
}

// queueSave adds to batch the statement sql (saveNewUpdateSQL or
// saveUpdateSQL) for each of updates. Each update's StoredAs is set once
// the batch has run; those neither stored nor there already go to *unsaved.
func (s *Store) queueSave(batch *pgx.Batch, sql string, updates []*Update, unsaved *[]*Update) error {
	for _, u := range updates {
		payload, err := pg.CleanJSON(u.Payload)
		if err != nil {
			return fmt.Errorf("save update %d: %w", u.UpdateID, err)
		}
		args := pg.Named(saveUpdateParams{BotID: s.botID.Load(), UpdateID: u.UpdateID, ChatID: u.ChatID, Payload: string(payload)})
		batch.Queue(sql, args).QueryRow(func(row pgx.Row) error {
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
	tag, err := s.pool.Exec(ctx, adoptUpdatesSQL, botID)
	if err != nil {
		return 0, fmt.Errorf("adopt updates: %w", translate(err))
	}
	return tag.RowsAffected(), nil
}

// ClaimNext claims the chat's oldest unfinished update for owner. It returns
// nil when the chat has none, or when another live process is handling it.
// owner must not be claiming for this chat elsewhere at the same time.
func (s *Store) ClaimNext(ctx context.Context, chatID int64, owner int32) (*Update, error) {
	u, err := scanClaim(s.pool.QueryRow(ctx, claimSQL, chatID, owner))
	if err != nil {
		return nil, fmt.Errorf("claim update: %w", translate(err))
	}
	return u, nil
}

// scanClaim reads the row claimSQL returns: nil when it claimed nothing.
func scanClaim(row pgx.Row) (*Update, error) {
	var u Update
	var payload string
	var scheduled bool
	err := row.Scan(&u.UpdateID, &u.ChatID, &payload, &u.Attempts, &u.Crashes, &u.Shown, &scheduled)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	u.Payload = []byte(payload)
	if scheduled {
		// Unreadable, it stays a payload no Telegram update routes: ignored.
		u.Run, _ = decodeRun(u.Payload)
	}
	return &u, nil
}

// NoteShown records the Telegram messages an answer to the update is in
// so far, each time one is sent (while it is written, and when it is sent
// whole): should this attempt be cut short before its delivery is
// recorded, the next one finds them in Update.Shown. It commits
// without waiting for the disk (pg.AsyncCommitSQL), as the answer row it
// goes with does: a bot that dies finds it all the same, and the window
// in which a sent message is unknown stays one round trip.
func (s *Store) NoteShown(ctx context.Context, updateID int64, telegramMessageIDs []int64) error {
	batch := &pgx.Batch{}
	batch.Queue(pg.AsyncCommitSQL)
	batch.Queue(noteShownSQL, updateID, telegramMessageIDs)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("note shown messages: %w", translate(err))
	}
	return nil
}

// Complete marks an update handled and, in the same transaction, records
// where its answer was delivered. errText notes why it was given up on.
func (s *Store) Complete(ctx context.Context, updateID int64, d *Delivery, errText string) error {
	batch := &pgx.Batch{}
	s.queueComplete(batch, updateID, d, errText)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("complete update: %w", translate(err))
	}
	return nil
}

// recordDeliveryParams are the arguments of recordDelivery.
type recordDeliveryParams struct {
	MessageID          int64   `db:"id"`
	TelegramMessageID  int64   `db:"telegram_message_id"`
	TelegramMessageIDs []int64 `db:"telegram_message_ids"`
	ShownAs            string  `db:"shown_as"`
}

// queueComplete adds the statements of Complete to batch.
func (s *Store) queueComplete(batch *pgx.Batch, updateID int64, d *Delivery, errText string) {
	if d != nil && len(d.TelegramMessageIDs) > 0 {
		batch.Queue(recordDeliverySQL, pg.Named(recordDeliveryParams{
			MessageID: d.MessageID, TelegramMessageID: d.TelegramMessageIDs[0], TelegramMessageIDs: d.TelegramMessageIDs,
			ShownAs: d.ShownAs,
		}))
		batch.Queue(replySentSQL, d.MessageID, updateID, d.TelegramMessageIDs)
	}
	dropped := ""
	if d != nil {
		dropped = d.Dropped
	}
	batch.Queue(completeUpdateSQL,
		updateID, s.secrets.Storable(errText), s.secrets.Storable(dropped))
}

// NotePanic counts a panic recovered while owner handled the update
// against that update (Update.Crashes), and returns its count now and
// the messages its answer was shown in so far (Update.Shown), which the
// next attempt goes on from.
func (s *Store) NotePanic(ctx context.Context, updateID int64, owner int32) (crashes int, shown []int64, err error) {
	if err := s.pool.QueryRow(ctx, notePanicSQL, updateID, owner).Scan(&crashes, &shown); err != nil {
		return 0, nil, fmt.Errorf("note a panic: %w", translate(err))
	}
	return crashes, shown, nil
}

// HandBack returns the updates owner holds to the inbox, when its run
// stops cleanly with turns abandoned: the next run takes them up again
// without counting them as in hand at a crash.
func (s *Store) HandBack(ctx context.Context, owner int32) error {
	if _, err := s.pool.Exec(ctx, handBackSQL, owner); err != nil {
		return fmt.Errorf("hand back updates: %w", translate(err))
	}
	return nil
}

// UnfinishedChats lists the chats that have updates not yet done.
func (s *Store) UnfinishedChats(ctx context.Context) ([]int64, error) {
	rows, err := s.pool.Query(ctx, unfinishedChatsSQL)
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
	err := s.pool.QueryRow(ctx, inboxBacklogSQL).Scan(&b.Unfinished, &seconds, &b.ToPurge, &purgeSeconds)
	if err != nil {
		return b, fmt.Errorf("inbox backlog: %w", translate(err))
	}
	b.OldestAge = time.Duration(seconds * float64(time.Second))
	b.PurgeAge = time.Duration(purgeSeconds * float64(time.Second))
	return b, nil
}

// The statements of this file, whole in sql/inbox.sql.
var (
	saveUpdateSQL      = statement("saveUpdate")
	saveNewUpdateSQL   = statement("saveNewUpdate")
	claimSQL           = statement("claim")
	replySentSQL       = statement("replySent")
	adoptUpdatesSQL    = statement("adoptUpdates")
	noteShownSQL       = statement("noteShown")
	recordDeliverySQL  = statement("recordDelivery")
	handBackSQL        = statement("handBack")
	completeUpdateSQL  = statement("completeUpdate")
	notePanicSQL       = statement("notePanic")
	unfinishedChatsSQL = statement("unfinishedChats")
	inboxBacklogSQL    = statement("inboxBacklog")
)
