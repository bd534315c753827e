package console

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

var (
	addSignInLinkSQL  = statement("addSignInLink")
	useSignInLinkSQL  = statement("useSignInLink")
	addSessionSQL     = statement("addSession")
	sessionSQL        = statement("session")
	sessionsSQL       = statement("sessions")
	endSessionSQL     = statement("endSession")
	dropOldSignInsSQL = statement("dropOldSignIns")
)

// ErrNoSession is a sign-in link or session that is unknown, used, ended
// or expired: which of these is not told, to anyone.
var ErrNoSession = errors.New("no such sign-in or session")

// Session is an open sign-in of an admin on the web interface.
type Session struct {
	ID         int64     `json:"id"`
	UserID     int64     `json:"user_id"`
	CSRF       string    `json:"-"`
	UserAgent  string    `json:"user_agent"`
	CreatedAt  time.Time `json:"created_at"`
	LastSeenAt time.Time `json:"last_seen_at"`
	ExpiresAt  time.Time `json:"expires_at"`
}

// hash is what is kept of a secret token.
func hash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// AddSignInLink keeps a one-time link's token for userID, valid for ttl.
func (s *Store) AddSignInLink(ctx context.Context, token string, userID int64, ttl time.Duration) error {
	_, err := s.pool.Exec(ctx, addSignInLinkSQL, pgx.NamedArgs{
		"token_hash": hash(token), "user_id": userID, "ttl": ttl.String(),
	})
	if err != nil {
		return fmt.Errorf("add sign-in link: %w", translate(err))
	}
	return nil
}

// SessionStart is a session to open.
type SessionStart struct {
	Token, CSRF, UserAgent string
	UserID                 int64
	TTL                    time.Duration
}

// SignIn uses the link's token (once) and opens the session st for the
// admin it was made for; ErrNoSession when the link cannot be used.
func (s *Store) SignIn(ctx context.Context, link string, st SessionStart) (Session, error) {
	var out Session
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, useSignInLinkSQL, hash(link)).Scan(&out.UserID); err != nil {
			return err
		}
		return tx.QueryRow(ctx, addSessionSQL, pgx.NamedArgs{
			"token_hash": hash(st.Token), "user_id": out.UserID, "csrf_token": st.CSRF,
			"user_agent": st.UserAgent, "ttl": st.TTL.String(),
		}).Scan(&out.ID)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return Session{}, ErrNoSession
	}
	if err != nil {
		return Session{}, fmt.Errorf("sign in: %w", translate(err))
	}
	out.CSRF, out.UserAgent = st.CSRF, st.UserAgent
	return out, nil
}

// Session is the open session of a cookie's token.
func (s *Store) Session(ctx context.Context, token string) (Session, error) {
	rows, err := s.pool.Query(ctx, sessionSQL, hash(token))
	if err != nil {
		return Session{}, fmt.Errorf("session: %w", translate(err))
	}
	out, err := pgx.CollectExactlyOneRow(rows, scanSession)
	if errors.Is(err, pgx.ErrNoRows) {
		return Session{}, ErrNoSession
	}
	if err != nil {
		return Session{}, fmt.Errorf("session: %w", translate(err))
	}
	return out, nil
}

// Sessions are the open sessions, newest first.
func (s *Store) Sessions(ctx context.Context) ([]Session, error) {
	return collect(ctx, s, "sessions", sessionsSQL, scanSession)
}

// EndSession ends session id; ending one already ended is no error.
func (s *Store) EndSession(ctx context.Context, id int64) error {
	if _, err := s.pool.Exec(ctx, endSessionSQL, id); err != nil {
		return fmt.Errorf("end session: %w", translate(err))
	}
	return nil
}

// DropOldSignIns deletes the links and sessions a day past their end.
func (s *Store) DropOldSignIns(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, dropOldSignInsSQL); err != nil {
		return fmt.Errorf("drop old sign-ins: %w", translate(err))
	}
	return nil
}

func scanSession(row pgx.CollectableRow) (Session, error) {
	var v Session
	err := row.Scan(&v.ID, &v.UserID, &v.CSRF, &v.UserAgent, &v.CreatedAt, &v.LastSeenAt, &v.ExpiresAt)
	return v, err
}

// collect runs a statement and scans every row; what names it in errors.
func collect[T any](ctx context.Context, s *Store, what, sql string, scan pgx.RowToFunc[T], args ...any) ([]T, error) {
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, translate(err))
	}
	out, err := pgx.CollectRows(rows, scan)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, translate(err))
	}
	return out, nil
}
