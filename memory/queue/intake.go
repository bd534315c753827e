package queue

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/membot/membot/memory/pg"
)

// The calls below each do two things the dispatcher does one after the
// other, in one round trip: a turn then costs one less (or two less) trip
// to the database. Each is one implicit transaction. Their claims never
// take back what the owner holds (see claimFreeSQL), so that two parts of
// one process may try the same chat at once and only one gets its update.

// SaveAndClaim stores updates as SaveUpdates does (setting each one's
// StoredAs) and claims for owner the
// oldest unfinished update of each chat in claim when nobody alive holds
// it, owner included (claimFreeSQL). It returns the updates it claimed.
//
// Updates are stored by saveNewUpdateSQL; the rare one whose id may be held
// (see migration 00025) is stored by saveUpdateSQL in a second round trip,
// which claims its chat again.
func (s *Store) SaveAndClaim(ctx context.Context, updates []Update, owner int32, claim []int64) ([]*Update, error) {
	if len(updates) == 0 {
		return nil, nil
	}
	todo := make([]*Update, len(updates))
	for i := range updates {
		todo[i] = &updates[i]
	}
	var out []*Update
	for _, sql := range []string{saveNewUpdateSQL, saveUpdateSQL} {
		var unsaved []*Update
		claimed, err := s.saveAndClaim(ctx, sql, todo, owner, claim, &unsaved)
		if err != nil {
			return nil, err
		}
		out = append(out, claimed...)
		if len(unsaved) == 0 {
			return out, nil
		}
		todo, claim = unsaved, chatsIn(unsaved, claim)
	}
	ids := make([]int64, len(todo))
	for i, u := range todo {
		ids[i] = u.UpdateID
	}
	return nil, fmt.Errorf("save updates %v: %w", ids, ErrUpdateRefused)
}

// saveAndClaim stores updates by sql and claims the chats in claim, in one
// round trip; the updates neither stored nor there already go to *unsaved.
func (s *Store) saveAndClaim(ctx context.Context, sql string, updates []*Update, owner int32, claim []int64, unsaved *[]*Update) ([]*Update, error) {
	batch := &pgx.Batch{}
	batch.Queue(pg.GenericPlansSQL)
	if err := s.queueSave(batch, sql, updates, unsaved); err != nil {
		return nil, err
	}
	claimed := make([]*Update, len(claim))
	for i, chat := range claim {
		queueClaim(batch, claimFreeSQL, chat, owner, &claimed[i])
	}
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return nil, fmt.Errorf("save updates: %w", translate(err))
	}
	out := claimed[:0]
	for _, u := range claimed {
		if u != nil {
			out = append(out, u)
		}
	}
	return out, nil
}

// chatsIn is the chats of claim that updates are of.
func chatsIn(updates []*Update, claim []int64) []int64 {
	var out []int64
	for _, chat := range claim {
		for _, u := range updates {
			if u.ChatID == chat {
				out = append(out, chat)
				break
			}
		}
	}
	return out
}

// CompleteAndClaimNext marks an update handled as Complete does and claims
// the chat's next update for owner when nobody alive holds it, owner
// included (claimFreeSQL): nil when there is none to take. Intake may have
// claimed it for owner already, updates of a chat arriving out of order.
func (s *Store) CompleteAndClaimNext(ctx context.Context, updateID int64, d *Delivery, errText string, chatID int64, owner int32) (*Update, error) {
	batch := &pgx.Batch{}
	s.queueComplete(batch, updateID, d, errText)
	var next *Update
	queueClaim(batch, claimFreeSQL, chatID, owner, &next)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return nil, fmt.Errorf("complete update: %w", translate(err))
	}
	return next, nil
}

// queueClaim adds a claim (claimSQL or claimFreeSQL) to batch; into gets
// its result.
func queueClaim(batch *pgx.Batch, sql string, chatID int64, owner int32, into **Update) {
	batch.Queue(sql, chatID, owner).QueryRow(func(row pgx.Row) error {
		u, err := scanClaim(row)
		*into = u
		return err
	})
}

// The statements of this file, whole in sql/intake.sql.
var (
	claimFreeSQL = statement("claimFree")
)
