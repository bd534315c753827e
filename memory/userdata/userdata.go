package userdata

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/membot/membot/memory"
)

// A user's rows are found by one convention, kept in the SQL functions
// of migration 00030 (membot_user_tables, membot_export_user,
// membot_delete_user), so that tables added later are covered without
// touching this file: a table that holds a user's data has a
// telegram_user_id column, or a chat_id column; updates and messages need
// more, as the migration says.
//
// Group conversations they started stay (others wrote in them too), with
// telegram_user_id set to 0; other members' updates that quote or name them
// stay too, with what was theirs taken out (scrubUpdates).

// Export returns every row of the user, table by table, as JSON: exactly
// what Forget would delete. It reads one consistent snapshot.
func (s *Store) Export(ctx context.Context, userID int64) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, exportUserSQL, userID)
		if err != nil {
			return err
		}
		var name string
		var data []byte
		_, err = pgx.ForEachRow(rows, []any{&name, &data}, func() error {
			out[name] = json.RawMessage(slices.Clone(data))
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("export user: %w", translate(err))
	}
	return out, nil
}

// Forget deletes every row of the user in every table, in one transaction,
// and returns how many rows each table lost.
func (s *Store) Forget(ctx context.Context, userID int64) (map[string]int64, error) {
	deleted := map[string]int64{}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		// The user's row is locked first, as a turn upserts it before it
		// stores its message (a key-share lock on the conversation): locked
		// last, with the conversations below locked, a turn of theirs
		// between the two deadlocked with this.
		if _, err := tx.Exec(ctx, lockUserSQL, userID); err != nil {
			return fmt.Errorf("lock user: %w", err)
		}
		// Their conversations, and those waiting for the purger (which may
		// hold their messages too), are locked next, as the purger locks a
		// conversation before deleting its messages: the other order could
		// deadlock with it. The purger skips them meanwhile.
		if _, err := tx.Exec(ctx, lockConversationsSQL, userID); err != nil {
			return fmt.Errorf("lock conversations: %w", err)
		}
		// Their group conversations stay, no longer attributed to them.
		if _, err := tx.Exec(ctx, disownGroupConversationsSQL, userID); err != nil {
			return fmt.Errorf("conversations: %w", err)
		}
		if err := scrubUpdates(ctx, tx, userID); err != nil {
			return fmt.Errorf("updates naming the user: %w", err)
		}
		rows, err := tx.Query(ctx, deleteUserSQL, userID)
		if err != nil {
			return err
		}
		var name string
		var n int64
		_, err = pgx.ForEachRow(rows, []any{&name, &n}, func() error {
			deleted[name] += n
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("forget user: %w", translate(err))
	}
	return deleted, nil
}

// LogEntry is one row of the conversation_log view.
type LogEntry struct {
	MessageID int64
	At        time.Time
	ChatID    int64
	Role      memory.Role
	Content   string
	ToolName  string
}

// History returns the user's newest limit messages across their
// conversations, oldest first.
func (s *Store) History(ctx context.Context, userID int64, limit int) ([]LogEntry, error) {
	return s.history(ctx, userHistorySQL, userID, limit)
}

// ChatHistory is History of a chat (a group's, whose id is negative): its
// newest messages, whoever wrote them, oldest first.
func (s *Store) ChatHistory(ctx context.Context, chatID int64, limit int) ([]LogEntry, error) {
	return s.history(ctx, chatHistorySQL, chatID, limit)
}

// history reads conversation_log with sql (userHistorySQL, chatHistorySQL).
func (s *Store) history(ctx context.Context, sql string, id int64, limit int) ([]LogEntry, error) {
	rows, err := s.pool.Query(ctx, sql, id, limit)
	if err != nil {
		return nil, fmt.Errorf("history: %w", translate(err))
	}
	entries, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (LogEntry, error) {
		var e LogEntry
		err := row.Scan(&e.MessageID, &e.At, &e.ChatID, &e.Role, &e.Content, &e.ToolName)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("history: %w", translate(err))
	}
	slices.Reverse(entries)
	return entries, nil
}

// scrubUpdates takes user userID out of other members' updates that name
// them: a quoted message of theirs (reply_to_message, external_reply,
// pinned_message) goes whole, and any other object with their id (a
// mention's user, a forward's origin) becomes {"id": 0}. The update itself
// stays: it is the other member's.
func scrubUpdates(ctx context.Context, tx pgx.Tx, userID int64) error {
	rows, err := tx.Query(ctx, updatesNamingUserSQL, userID)
	if err != nil {
		return err
	}
	type named struct {
		ID      int64
		Payload []byte
	}
	found, err := pgx.CollectRows(rows, pgx.RowToStructByPos[named])
	if err != nil {
		return err
	}
	for _, u := range found {
		var payload any
		dec := json.NewDecoder(bytes.NewReader(u.Payload))
		dec.UseNumber() // ids stay exact
		if err := dec.Decode(&payload); err != nil {
			return fmt.Errorf("update %d: %w", u.ID, err)
		}
		clean, err := json.Marshal(withoutUser(payload, json.Number(strconv.FormatInt(userID, 10))))
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, setScrubbedPayloadSQL, u.ID, clean); err != nil {
			return err
		}
	}
	return nil
}

// quoting are the fields of a Telegram message that hold another message.
var quoting = []string{"reply_to_message", "external_reply", "pinned_message", "quote"}

// withoutUser returns v with user id's quoted messages removed and objects
// carrying their id emptied.
func withoutUser(v any, id json.Number) any {
	switch v := v.(type) {
	case map[string]any:
		if v["id"] == id {
			return map[string]any{"id": 0}
		}
		for _, field := range quoting {
			if q, ok := v[field].(map[string]any); ok && mentions(q, id) {
				delete(v, field)
			}
		}
		for k, child := range v {
			v[k] = withoutUser(child, id)
		}
	case []any:
		for i, child := range v {
			v[i] = withoutUser(child, id)
		}
	}
	return v
}

// mentions reports whether user id appears anywhere in v.
func mentions(v any, id json.Number) bool {
	switch v := v.(type) {
	case map[string]any:
		if v["id"] == id {
			return true
		}
		for _, child := range v {
			if mentions(child, id) {
				return true
			}
		}
	case []any:
		for _, child := range v {
			if mentions(child, id) {
				return true
			}
		}
	}
	return false
}

// The statements of this file, whole in sql/userdata.sql.
var (
	userHistorySQL              = statement("userHistory")
	chatHistorySQL              = statement("chatHistory")
	exportUserSQL               = statement("exportUser")
	deleteUserSQL               = statement("deleteUser")
	lockUserSQL                 = statement("lockUser")
	lockConversationsSQL        = statement("lockConversations")
	disownGroupConversationsSQL = statement("disownGroupConversations")
	updatesNamingUserSQL        = statement("updatesNamingUser")
	setScrubbedPayloadSQL       = statement("setScrubbedPayload")
)
