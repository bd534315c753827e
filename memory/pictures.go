package memory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/memory/pg"
)

// Pictures is the pictures drawn for the chats: the tokens each reserves
// of its user's day, how its call ended, and the picture kept until it is
// sent, so that a restart sends it instead of drawing it again.
type Pictures struct{ base }

// PictureAsk is a picture about to be drawn, for ReservePicture.
type PictureAsk struct {
	UserID, ChatID int64
	ConversationID string
	UpdateID       int64
	Model          string
	Prompt         string
	Tokens         int // what the picture counts against the day
	// PerUpdate bounds the pictures of UpdateID (0: no bound).
	PerUpdate int
	// Limit is the user's tokens a day from DayStart on; < 0: no limit.
	Limit    int64
	DayStart time.Time
}

// Reservation is what ReservePicture decided: a picture kept for the
// update and never sent (Kept), or a reserved call (CallID), or neither,
// with what refused it: Drawn pictures of the update already, Spent
// tokens of the day.
type Reservation struct {
	Kept   *KeptPicture
	CallID int64
	Drawn  int
	Spent  int64
}

// KeptPicture is a picture drawn and not yet sent.
type KeptPicture struct {
	CallID        int64
	Data          []byte
	MimeType      string
	RevisedPrompt string
}

// reservePictureParams are the arguments of reservePicture.
type reservePictureParams struct {
	UserID         int64     `db:"telegram_user_id"`
	ChatID         int64     `db:"chat_id"`
	ConversationID string    `db:"conversation_id"`
	UpdateID       int64     `db:"update_id"`
	Model          string    `db:"model"`
	Tokens         int       `db:"prompt_tokens"`
	PerUpdate      int       `db:"per_update"`
	DayStart       time.Time `db:"day_start"`
	DayLimit       int64     `db:"day_limit"`
}

// ReservePicture finds the picture of ask's update and prompt drawn before
// and not sent, or else reserves ask's tokens: the image call is written
// with them in the statement that checks the user's day, under the user's
// lock, so that pictures asked for at once in several chats are decided
// one after the other and the day's tokens cannot be spent twice.
func (s Pictures) ReservePicture(ctx context.Context, ask PictureAsk) (Reservation, error) {
	var r Reservation
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockUserBoundsSQL, ask.UserID); err != nil {
			return err
		}
		if ask.UpdateID != 0 {
			var k KeptPicture
			err := tx.QueryRow(ctx, storedPictureSQL, ask.ChatID, ask.UpdateID, ask.Prompt).Scan(&k.CallID, &k.Data, &k.MimeType, &k.RevisedPrompt)
			switch {
			case err == nil:
				r.Kept = &k
				return nil
			case !errors.Is(err, pgx.ErrNoRows):
				return err
			}
		}
		return tx.QueryRow(ctx, reservePictureSQL, pg.Named(reservePictureParams{
			UserID: ask.UserID, ChatID: ask.ChatID, ConversationID: ask.ConversationID, UpdateID: ask.UpdateID,
			Model: ask.Model, Tokens: ask.Tokens, PerUpdate: ask.PerUpdate, DayStart: ask.DayStart, DayLimit: ask.Limit,
		})).Scan(&r.Drawn, &r.Spent, &r.CallID)
	})
	if err != nil {
		return Reservation{}, fmt.Errorf("reserve a picture: %w", translate(err))
	}
	return r, nil
}

// PictureDrawn is how a reserved picture's call ended.
type PictureDrawn struct {
	CallID  int64
	Status  string // "ok", or why it failed
	Error   string
	Latency time.Duration
	// Tokens it counts: the reserved ones when the server drew (or may
	// have drawn) it, 0 to give them back.
	Tokens int
	// The picture, kept until it is sent (PictureSent) when Data is set
	// and UpdateID is not 0.
	ChatID, UpdateID        int64
	Prompt                  string
	Data                    []byte
	MimeType, RevisedPrompt string
}

// FinishPicture records how a reserved call ended and keeps its picture,
// in one transaction: a crash after it finds the picture (ReservePicture)
// and sends it, and draws nothing again.
func (s Pictures) FinishPicture(ctx context.Context, d PictureDrawn) error {
	batch := &pgx.Batch{}
	batch.Queue(finishPictureSQL, pg.Named(finishPictureParams{
		CallID: d.CallID, Status: d.Status, Error: s.storable(d.Error), LatencyMS: d.Latency.Milliseconds(), Tokens: d.Tokens,
	}))
	if len(d.Data) > 0 && d.UpdateID != 0 {
		batch.Queue(keepPictureSQL, pg.Named(keepPictureParams{
			CallID: d.CallID, ChatID: d.ChatID, UpdateID: d.UpdateID, Prompt: d.Prompt, Data: d.Data,
			MimeType: d.MimeType, RevisedPrompt: d.RevisedPrompt,
		}))
	}
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("finish a picture: %w", translate(err))
	}
	return nil
}

// finishPictureParams are the arguments of finishPicture.
type finishPictureParams struct {
	CallID    int64  `db:"id"`
	Status    string `db:"status"`
	Error     string `db:"error"`
	LatencyMS int64  `db:"latency_ms"`
	Tokens    int    `db:"prompt_tokens"`
}

// keepPictureParams are the arguments of keepPicture.
type keepPictureParams struct {
	CallID        int64  `db:"llm_call_id"`
	ChatID        int64  `db:"chat_id"`
	UpdateID      int64  `db:"update_id"`
	Prompt        string `db:"prompt"`
	Data          []byte `db:"data"`
	MimeType      string `db:"mime_type"`
	RevisedPrompt string `db:"revised_prompt"`
}

// PictureSent drops the kept picture of call id: Telegram has it.
func (s Pictures) PictureSent(ctx context.Context, callID int64) error {
	if _, err := s.pool.Exec(ctx, pictureSentSQL, callID); err != nil {
		return fmt.Errorf("picture sent: %w", translate(err))
	}
	return nil
}

// The statements of this file, whole in sql/pictures.sql.
var (
	lockUserBoundsSQL = statement("lockUserBounds")
	storedPictureSQL  = statement("storedPicture")
	reservePictureSQL = statement("reservePicture")
	finishPictureSQL  = statement("finishPicture")
	keepPictureSQL    = statement("keepPicture")
	pictureSentSQL    = statement("pictureSent")
)
