package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/memory/pg"
)

// Access keeps who uses the bot and who may: the users, the owner and
// the claim code, the grants and the requests of owner mode, and the
// refusals. It is safe for concurrent use.
type Access struct{ base }

// Refusal is a message from someone not allowed to use the bot.
type Refusal struct {
	UserID   int64
	ChatID   int64
	UpdateID int64
	Day      string // the local day, 2006-01-02
	// Payload replaces the update's stored JSON: nothing a stranger wrote
	// is kept (nil keeps it as it is).
	Payload []byte
}

// refuseParams are the arguments of refuse.
type refuseParams struct {
	UserID   int64  `db:"telegram_user_id"`
	ChatID   int64  `db:"chat_id"`
	Day      string `db:"day"`
	UpdateID int64  `db:"refused_update_id"`
}

// Refuse records a refused message and its access_denied event in one round
// trip. It reports whether the sender should be told: once a day per chat.
func (s Access) Refuse(ctx context.Context, r Refusal) (answer bool, err error) {
	batch := &pgx.Batch{}
	args := pg.Named(refuseParams{UserID: r.UserID, ChatID: r.ChatID, Day: r.Day, UpdateID: r.UpdateID})
	batch.Queue(refuseSQL, args).QueryRow(func(row pgx.Row) error {
		return row.Scan(&answer)
	})
	s.queueEvent(batch, Event{Type: EventAccessDenied, UserID: r.UserID, ChatID: r.ChatID, UpdateID: r.UpdateID})
	if r.Payload != nil {
		batch.Queue(setUpdatePayloadSQL, r.UpdateID, r.Payload)
	}
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return false, fmt.Errorf("refuse: %w", translate(err))
	}
	return answer, nil
}

// What the owner decided on a user or a group (access_grants.status), and
// on a request (access_requests.status), and what is decided on.
const (
	AccessOwner   = "owner"
	AccessAllowed = "allowed"
	AccessBlocked = "blocked"
	AccessDenied  = "denied" // a request only
	KindUser      = "user"
	KindGroup     = "group"
)

// AccessState is what the owner decided on a user and on the chat they
// write in ("" for nothing), and whether the bot has an owner.
type AccessState struct {
	User, Group string
	Claimed     bool
}

// AccessOf is the access state of userID writing in chatID.
func (s Access) AccessOf(ctx context.Context, userID, chatID int64) (AccessState, error) {
	var st AccessState
	batch := &pgx.Batch{}
	QueueAccessOf(batch, userID, chatID, &st)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return st, fmt.Errorf("access of user %d in chat %d: %w", userID, chatID, translate(err))
	}
	return st, nil
}

// QueueAccessOf queues AccessOf's read into st on a batch another
// repository sends, so that the gate asks who a sender is and what the
// limits count in one round trip (userdata.Store.AccessAndUsage).
func QueueAccessOf(batch *pgx.Batch, userID, chatID int64, st *AccessState) {
	batch.Queue(accessOfSQL, userID, chatID).QueryRow(func(row pgx.Row) error {
		return row.Scan(&st.User, &st.Group, &st.Claimed)
	})
}

// Claim is the bot's claim: whether it has an owner and, until it has, the
// code that makes one and when it expires.
type Claim struct {
	Claimed   bool
	Code      string
	ExpiresAt time.Time
	// ServedBefore: the users table has rows (the bot served people before).
	ServedBefore bool
}

// AccessClaim returns the claim, newCode becoming the code (for lifetime)
// when the bot has no owner and no live code.
func (s Access) AccessClaim(ctx context.Context, newCode string, lifetime time.Duration) (Claim, error) {
	var c Claim
	err := s.pool.QueryRow(ctx, accessClaimSQL, newCode, lifetime.Seconds()).Scan(&c.Claimed, &c.Code, &c.ExpiresAt, &c.ServedBefore)
	if err != nil {
		return c, fmt.Errorf("access claim: %w", translate(err))
	}
	if c.Claimed {
		c.Code = ""
	}
	return c, nil
}

// ClaimOutcome is what a claim attempt came to.
type ClaimOutcome int

const (
	ClaimOwned   ClaimOutcome = iota // the user is the owner now
	ClaimWrong                       // not the code: counted
	ClaimExpired                     // the code expired (or there is none)
	ClaimTooMany                     // too many wrong codes this hour: not even checked
	ClaimTaken                       // the bot has an owner already
)

// ClaimOwner tries to make userID the owner with what they sent in update
// updateID, same telling whether a live code matches it. A user gets
// maxWrong wrong codes an hour; triesLeft is how many remain.
func (s Access) ClaimOwner(ctx context.Context, userID, updateID int64, same func(code string) bool, maxWrong int) (outcome ClaimOutcome, triesLeft int, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockAccessSQL, claimLockKey); err != nil {
			return err
		}
		var claimed, exists bool
		var code string
		var wrong int
		if err := tx.QueryRow(ctx, claimStateSQL, userID).Scan(&claimed, &code, &exists, &wrong); err != nil {
			return err
		}
		switch {
		case claimed:
			outcome = ClaimTaken
		case wrong >= maxWrong:
			outcome = ClaimTooMany
		case code == "":
			outcome = ClaimExpired
		case same(code):
			tag, err := tx.Exec(ctx, claimOwnerSQL, userID)
			if outcome = ClaimOwned; tag.RowsAffected() == 0 {
				outcome = ClaimTaken
			}
			return err
		default:
			outcome, triesLeft = ClaimWrong, max(maxWrong-wrong-1, 0)
			_, err := tx.Exec(ctx, claimFailedSQL, userID, updateID)
			return err
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("claim the bot for user %d: %w", userID, translate(err))
	}
	return outcome, triesLeft, nil
}

// The advisory locks (one bigint each) of claims and of requests.
const (
	claimLockKey   int64 = 1835363838
	requestLockKey int64 = 1835363839
)

// AccessRequest is a stranger's (or a group's) request to be served: who
// asks, where, never what they wrote.
type AccessRequest struct {
	ID           int64     `json:"id"`
	Kind         string    `json:"kind"`        // KindUser or KindGroup
	TelegramID   int64     `json:"telegram_id"` // the user, or the group's chat id
	ChatID       int64     `json:"chat_id"`     // where they asked
	UserID       int64     `json:"user_id"`     // who wrote (for a group: who added the bot, or wrote)
	FirstName    string    `json:"first_name"`
	LastName     string    `json:"last_name"`
	Username     string    `json:"username"`
	LanguageCode string    `json:"language_code"`
	ChatTitle    string    `json:"chat_title"`
	CreatedAt    time.Time `json:"created_at"`
	ExpiresAt    time.Time `json:"expires_at"`
}

// AskOutcome is what asking came to.
type AskOutcome int

const (
	AskOpened  AskOutcome = iota // a request was opened: tell the owner
	AskWaiting                   // the asker's request of the lifetime waits still
	AskDenied                    // the owner denied the asker's request of the lifetime
	AskFull                      // too many requests wait already
)

// askAccessParams are the arguments of askAccess: the request, and the
// bounds it may not pass.
type askAccessParams struct {
	Kind            string  `db:"kind"`
	TelegramID      int64   `db:"telegram_id"`
	ChatID          int64   `db:"chat_id"`
	UserID          int64   `db:"telegram_user_id"`
	FirstName       string  `db:"first_name"`
	LastName        string  `db:"last_name"`
	Username        string  `db:"username"`
	LanguageCode    string  `db:"language_code"`
	ChatTitle       string  `db:"chat_title"`
	MaxPending      int     `db:"max_pending"`
	LifetimeSeconds float64 `db:"lifetime_seconds"`
}

// AskAccess opens r unless its asker asked within lifetime or maxPending
// requests wait already; an opened request gets its id and times. A
// request decided otherwise than denied lets its asker in or out at the
// gate, so a recent one is waiting or denied.
func (s Access) AskAccess(ctx context.Context, r AccessRequest, maxPending int, lifetime time.Duration) (AccessRequest, AskOutcome, error) {
	var recent string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockAccessSQL, requestLockKey); err != nil {
			return err
		}
		return tx.QueryRow(ctx, askAccessSQL, pg.Named(askAccessParams{
			Kind: r.Kind, TelegramID: r.TelegramID, ChatID: r.ChatID, UserID: r.UserID,
			FirstName: cleanText(r.FirstName), LastName: cleanText(r.LastName), Username: cleanText(r.Username),
			LanguageCode: cleanText(r.LanguageCode), ChatTitle: cleanText(r.ChatTitle),
			MaxPending: maxPending, LifetimeSeconds: lifetime.Seconds(),
		})).Scan(&r.ID, &r.CreatedAt, &r.ExpiresAt, &recent)
	})
	switch {
	case err != nil:
		return r, 0, fmt.Errorf("ask access for %s %d: %w", r.Kind, r.TelegramID, translate(err))
	case r.ID != 0:
		return r, AskOpened, nil
	case recent == AccessDenied:
		return r, AskDenied, nil
	case recent != "":
		return r, AskWaiting, nil
	}
	return r, AskFull, nil
}

// DecideAccess decides pending request id (status AccessAllowed,
// AccessDenied or AccessBlocked) for decider by, and returns it; ok is
// false when it is not pending (decided already, or expired).
func (s Access) DecideAccess(ctx context.Context, id int64, status string, by int64) (r AccessRequest, ok bool, err error) {
	rows, err := s.pool.Query(ctx, decideAccessSQL, id, status, by)
	if err != nil {
		return r, false, fmt.Errorf("decide access request %d: %w", id, translate(err))
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[AccessRequest])
	if err != nil {
		return r, false, fmt.Errorf("decide access request %d: %w", id, translate(err))
	}
	if len(list) == 0 {
		return r, false, nil
	}
	return list[0], true, nil
}

// setAccessParams are the arguments of setAccess.
type setAccessParams struct {
	Kind       string `db:"kind"`
	TelegramID int64  `db:"telegram_id"`
	Status     string `db:"status"`
	GrantedBy  int64  `db:"granted_by"`
}

// SetAccess records the owner's word (AccessAllowed or AccessBlocked, by
// decider by) on a user or group, closing its pending requests with it.
// It reports false for an owner, who stays the owner.
func (s Access) SetAccess(ctx context.Context, kind string, telegramID int64, status string, by int64) (bool, error) {
	tag, err := s.pool.Exec(ctx, setAccessSQL, pg.Named(setAccessParams{
		Kind: kind, TelegramID: telegramID, Status: status, GrantedBy: by,
	}))
	if err != nil {
		return false, fmt.Errorf("set access of %s %d: %w", kind, telegramID, translate(err))
	}
	return tag.RowsAffected() > 0, nil
}

// RevokeAccess forgets the owner's word on a user or group; it reports
// whether there was one (an owner's is kept).
func (s Access) RevokeAccess(ctx context.Context, kind string, telegramID int64) (bool, error) {
	tag, err := s.pool.Exec(ctx, revokeAccessSQL, kind, telegramID)
	if err != nil {
		return false, fmt.Errorf("revoke access of %s %d: %w", kind, telegramID, translate(err))
	}
	return tag.RowsAffected() > 0, nil
}

// AccessGrant is the owner's word on a user or group, with the name last seen.
type AccessGrant struct {
	Kind       string    `json:"kind"`
	TelegramID int64     `json:"telegram_id"`
	Status     string    `json:"status"`
	FirstName  string    `json:"first_name"`
	Username   string    `json:"username"`
	ChatTitle  string    `json:"chat_title"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// AccessGrants lists up to limit of the owner's words: the owners, the
// allowed, then the blocked.
func (s Access) AccessGrants(ctx context.Context, limit int) ([]AccessGrant, error) {
	rows, err := s.pool.Query(ctx, accessGrantsSQL, limit)
	if err != nil {
		return nil, fmt.Errorf("access grants: %w", translate(err))
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[AccessGrant])
	if err != nil {
		return nil, fmt.Errorf("access grants: %w", translate(err))
	}
	return list, nil
}

// PendingRequests lists up to limit requests waiting, the oldest first.
func (s Access) PendingRequests(ctx context.Context, limit int) ([]AccessRequest, error) {
	rows, err := s.pool.Query(ctx, pendingRequestsSQL, limit)
	if err != nil {
		return nil, fmt.Errorf("pending access requests: %w", translate(err))
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[AccessRequest])
	if err != nil {
		return nil, fmt.Errorf("pending access requests: %w", translate(err))
	}
	return list, nil
}

// Decider is someone asked about requests, and the language they last wrote in.
type Decider struct {
	UserID       int64
	LanguageCode string
}

// AccessDeciders are the owners and admins, who decide requests.
func (s Access) AccessDeciders(ctx context.Context, admins []int64) ([]Decider, error) {
	if admins == nil {
		admins = []int64{}
	}
	rows, err := s.pool.Query(ctx, accessDecidersSQL, admins)
	if err != nil {
		return nil, fmt.Errorf("access deciders: %w", translate(err))
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Decider])
	if err != nil {
		return nil, fmt.Errorf("access deciders: %w", translate(err))
	}
	return list, nil
}

// The statements of this file, whole in sql/access.sql.
var (
	refuseSQL           = statement("refuse")
	setUpdatePayloadSQL = statement("setUpdatePayload")
	accessOfSQL         = statement("accessOf")
	accessClaimSQL      = statement("accessClaim")
	lockAccessSQL       = statement("lockAccess")
	claimStateSQL       = statement("claimState")
	claimOwnerSQL       = statement("claimOwner")
	claimFailedSQL      = statement("claimFailed")
	askAccessSQL        = statement("askAccess")
	decideAccessSQL     = statement("decideAccess")
	setAccessSQL        = statement("setAccess")
	revokeAccessSQL     = statement("revokeAccess")
	accessGrantsSQL     = statement("accessGrants")
	pendingRequestsSQL  = statement("pendingRequests")
	accessDecidersSQL   = statement("accessDeciders")
)
