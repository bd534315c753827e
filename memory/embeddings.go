package memory

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/memory/jobs"
	"github.com/membot/membot/memory/pg"
)

// Index finds messages by their words and, once pgvector is there
// (EnableVectors), by their meaning, and keeps their embeddings. It is
// safe for concurrent use.
type Index struct {
	base
	vectors *atomic.Bool // shared with Store, whose turns recall with it
}

// EnableVectors creates pgvector's extension and the message_embeddings
// table when the server has pgvector and the role may (see migration
// 00019), and says whether semantic recall is possible. Until it has said
// yes, searches are full-text alone.
func (s Index) EnableVectors(ctx context.Context) (bool, error) {
	var ok bool
	if err := s.pool.QueryRow(ctx, enableVectorsSQL).Scan(&ok); err != nil {
		return false, fmt.Errorf("enable vectors: %w", translate(err))
	}
	s.vectors.Store(ok)
	return ok, nil
}

// Vectors says whether searches may use the message embeddings.
func (s Index) Vectors() bool { return s.vectors.Load() }

// saveEmbeddingsParams are the arguments of saveEmbeddings.
type saveEmbeddingsParams struct {
	MessageID      int64  `db:"message_id"`
	ConversationID string `db:"conversation_id"`
	Model          string `db:"model"`
	Embedding      any    `db:"embedding"` // pgvector's text form
}

// SaveEmbeddings stores the embeddings of rows (vecs[i] is rows[i]'s; a
// nil one is skipped), the model call, and moves the embeddings job's
// cursor to cursor, in one round trip.
func (s Index) SaveEmbeddings(ctx context.Context, model string, rows []jobs.TextRow, vecs [][]float32, call LLMCall, cursor int64) error {
	batch := &pgx.Batch{}
	if s.Vectors() {
		for i, r := range rows {
			if i < len(vecs) && vecs[i] != nil {
				batch.Queue(saveEmbeddingsSQL, pg.Named(saveEmbeddingsParams{
					MessageID: r.ID, ConversationID: r.ConversationID, Model: model, Embedding: vectorLiteral(vecs[i]),
				}))
			}
		}
	}
	if call.Model != "" {
		s.queueLLMCall(batch, call)
	}
	jobs.QueueCursor(batch, jobs.Embeddings, cursor)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("save embeddings: %w", translate(err))
	}
	return nil
}

// The statements of this file, whole in sql/embeddings.sql.
var (
	enableVectorsSQL  = statement("enableVectors")
	saveEmbeddingsSQL = statement("saveEmbeddings")
)
