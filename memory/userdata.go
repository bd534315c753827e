package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// A user's rows are found by one convention, so that tables added later are
// covered without touching this file: a table that holds a user's data has a
// telegram_user_id column, or a chat_id column (a private chat's id is the
// user's id; group ids are negative). Two tables need more:
//   - updates: also every update whose payload names the user anywhere
//     (a group message they wrote, a button they pressed);
//   - messages: rows of their private chats, and rows answering their updates
//     in group conversations.
//
// Group conversations they started stay (others wrote in them too), with
// telegram_user_id set to 0.

// userUpdatesSQL selects the inbox rows of user $1.
const userUpdatesSQL = `chat_id = $1 OR jsonb_path_exists(payload, '$.** ? (@.id == $uid)', jsonb_build_object('uid', $1::bigint))`

// userTable is a table holding rows of a user and the condition on $1 that
// selects them.
type userTable struct {
	name  string
	where string
	order string // for export
}

// userTables lists the tables with rows of a user, in the order they are
// deleted: dependents first, then conversations, then users.
func userTables(ctx context.Context, tx pgx.Tx) ([]userTable, error) {
	rows, err := tx.Query(ctx, `SELECT c.table_name, array_agg(c.column_name::text ORDER BY c.column_name)
		FROM information_schema.columns c
		JOIN information_schema.tables t USING (table_schema, table_name)
		WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
		  AND c.column_name IN ('telegram_user_id', 'chat_id')
		GROUP BY c.table_name ORDER BY c.table_name`)
	if err != nil {
		return nil, err
	}
	generic := map[string]string{}
	var names []string
	for rows.Next() {
		var name string
		var cols []string
		if err := rows.Scan(&name, &cols); err != nil {
			return nil, err
		}
		where := ""
		for _, col := range cols {
			if where != "" {
				where += " OR "
			}
			where += pgx.Identifier{col}.Sanitize() + " = $1"
		}
		generic[name] = where
		names = append(names, name)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	tables := []userTable{
		{name: "messages", order: "id", where: `conversation_id IN (SELECT id FROM conversations WHERE chat_id = $1)
			OR update_id IN (SELECT update_id FROM updates WHERE ` + userUpdatesSQL + `)`},
		{name: "updates", order: "update_id", where: userUpdatesSQL},
	}
	last := []string{"conversations", "users"} // what other tables may refer to
	for _, name := range names {
		if name != "updates" && !slices.Contains(last, name) {
			tables = append(tables, userTable{name: name, where: generic[name]})
		}
	}
	for _, name := range last {
		if where, ok := generic[name]; ok {
			tables = append(tables, userTable{name: name, where: where})
		}
	}
	return tables, nil
}

// Export returns every row of the user, table by table, as JSON: exactly
// what Forget would delete. It reads one consistent snapshot.
func (s *Store) Export(ctx context.Context, userID int64) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		tables, err := userTables(ctx, tx)
		if err != nil {
			return err
		}
		for _, t := range tables {
			order := ""
			if t.order != "" {
				order = " ORDER BY " + t.order
			}
			var rows []byte
			q := `SELECT coalesce(json_agg(row_to_json(t)` + order + `), '[]') FROM ` +
				pgx.Identifier{t.name}.Sanitize() + ` t WHERE ` + t.where
			if err := tx.QueryRow(ctx, q, userID).Scan(&rows); err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
			out[t.name] = rows
		}
		return nil
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
		tables, err := userTables(ctx, tx)
		if err != nil {
			return err
		}
		// Their conversations, and those waiting for the purger (which may
		// hold their messages too), are locked first, as the purger locks a
		// conversation before deleting its messages: the other order could
		// deadlock with it. The purger skips them meanwhile.
		if _, err := tx.Exec(ctx, `SELECT FROM conversations WHERE chat_id = $1 OR telegram_user_id = $1 OR reset_at IS NOT NULL
			FOR UPDATE`, userID); err != nil {
			return fmt.Errorf("lock conversations: %w", err)
		}
		// Their group conversations stay, no longer attributed to them.
		if _, err := tx.Exec(ctx, `UPDATE conversations SET telegram_user_id = 0
			WHERE telegram_user_id = $1 AND chat_id <> $1`, userID); err != nil {
			return fmt.Errorf("conversations: %w", err)
		}
		for _, t := range tables {
			tag, err := tx.Exec(ctx, `DELETE FROM `+pgx.Identifier{t.name}.Sanitize()+` WHERE `+t.where, userID)
			if err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
			deleted[t.name] += tag.RowsAffected()
		}
		return nil
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
	Role      Role
	Content   string
	ToolName  string
}

// History returns the user's newest limit messages across their
// conversations, oldest first.
func (s *Store) History(ctx context.Context, userID int64, limit int) ([]LogEntry, error) {
	rows, err := s.pool.Query(ctx, `SELECT message_id, created_at, chat_id, role, content, coalesce(tool_name, '')
		FROM conversation_log WHERE telegram_user_id = $1 ORDER BY message_id DESC LIMIT $2`, userID, limit)
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
