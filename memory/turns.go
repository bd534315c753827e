package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// TurnStart is what a new turn stores: who wrote what, in which chat.
type TurnStart struct {
	User              User
	Chat              Chat
	UpdateID          int64 // the Telegram update being answered; 0 when none
	TelegramMessageID int64
	Content           string // the text as the model will see it
	HistoryLimit      int
	FactChars         int // how many characters of the user's facts to load
	// Metadata is added to the user row's metadata (the files it came
	// with, under "media"); nil for none.
	Metadata map[string]any
	// Kind is the message_received event's kind: "text" when "", "voice", "photo", ...
	Kind string
	// Recall, when its Limit is not 0, finds the rows older than the
	// window that best match the user's message (auto-recall).
	Recall Recall
}

// Recall is what a turn's auto-recall looks for (see Search). Its words
// are the stems stored with the turn's row; Text only tells whether the
// message has any (a sticker has none).
type Recall struct {
	Limit          int
	Text           string
	Embedding      []float32
	EmbeddingModel string
}

// Turn is the state a turn works from.
type Turn struct {
	ConversationID string
	UserMessageID  int64
	// History is the newest HistoryLimit rows of the conversation, oldest
	// first; the user's new row is the last of them. Their Metadata is left
	// out (the model does not see it; LastMessages has whole rows).
	History []Message
	// Answer is the final assistant row already stored for this update by an
	// earlier attempt that was cut short, or nil.
	Answer *Message
	// Mode is the conversation's mode: which system prompt the model gets.
	Mode string
	// Model is the conversation's model (/model); "" for the default.
	Model string
	// Facts are the user's newest long-term facts, within FactChars.
	Facts []Fact
	// Approvals are the chat's pending approvals and every approval asked
	// by this turn (of this update, or of the resumed assistant row).
	Approvals []Approval
	// VoiceReplies: the chat has its answers spoken too (/voice).
	VoiceReplies bool
	// Summary is the conversation's newest summary of the rows that left
	// the window; "" when none.
	Summary string
	// Recalled are the rows older than the window that best match the
	// user's message (TurnStart.Recall), best first.
	Recalled []Snippet
}

// insertUserMessageSQL stores the user's row in the chat's current
// conversation, with its author's id in the metadata (in a group the text's
// name prefix is for the model; the id is what a query should trust). A
// second attempt at the same update stores nothing. $7 is the topic.
var insertUserMessageSQL = `WITH ` + currentConversationCTE("$7") + `
INSERT INTO messages (conversation_id, role, content, telegram_message_id, update_id, metadata, search_vector)
SELECT id, 'user', $3, NULLIF($4::bigint, 0), NULLIF($5::bigint, 0),
	jsonb_build_object('author_id', $2::bigint) || coalesce($6::jsonb, '{}'::jsonb), ` + searchVectorOf(`'user'`, "$3") + ` FROM conv
ON CONFLICT (update_id) WHERE role = 'user' DO NOTHING`

// turnUserRowSQL finds the turn's user row. When the update is known, its
// row names the conversation (a retried turn stays in the conversation it
// began in); otherwise it is the newest row of the chat's current
// conversation. The two cases are two branches of a UNION ALL, each gated
// by a condition on $2 alone, rather than one WHERE with an OR: pgx prepares
// statements, PostgreSQL may then plan them without looking at the values
// (a generic plan), and the OR became a scan of the whole conversation.
// Parameter thread is the topic.
func turnUserRow(thread string) string {
	return `SELECT id, conversation_id FROM (
	SELECT id, conversation_id FROM messages WHERE $2::bigint <> 0 AND update_id = $2::bigint AND role = 'user'
	UNION ALL
	(SELECT id, conversation_id FROM messages WHERE $2::bigint = 0 AND conversation_id =
		` + currentConversationID(thread) + `
	ORDER BY id DESC LIMIT 1)) turn_user_row`
}

// turnHistorySQL is the newest $3 rows of the conversation of the turn's
// user row (topic $4).
var turnHistorySQL = lastMessagesQuery(`(SELECT conversation_id FROM (`+turnUserRow("$4")+`) r)`, "$3")

// turnConversationSQL is the conversation of the turn's user row (topic
// $3), its mode, model, voice replies and summary.
var turnConversationSQL = `SELECT r.conversation_id::text, r.id, c.mode, coalesce(c.model, ''), ` + voiceRepliesSQL + `,
		` + summaryTextSQL("r.conversation_id") + ` FROM (` + turnUserRow("$3") + `) r
		JOIN conversations c ON c.id = r.conversation_id`

// turnRecallSQL is the auto-recall of a turn with the message's embedding
// (autoRecallFront and the semantic side) over the conversation of its
// user row, stored before it in StartTurn's batch, before its window of
// $3 rows: the semantic side ranks anyway, so no found statement first.
// $7 is the topic.
var turnRecallSQL = recallParams(rankSQL(turnRecallFront("$7"), true, false), "", "$4", "$5", "$6")

// turnFoundSQL tells whether the turn's auto-recall without an embedding
// has anything to rank (autoRecallFound). Most turns' recall does not,
// and setting up the ranking alone, for no rows, cost 0.2 ms of a turn
// (membench); so StartTurn ranks only after this says yes, in a round
// trip of its own (turnRankSQL). $5 is the topic.
var turnFoundSQL = recallParams(strings.ReplaceAll(autoRecallFound(turnRecallRow("$5")), "{window}", "$3"), "", "$4", "", "")

// turnRankSQL ranks autoRecallFront for the turn's row $1, known once
// the batch that stored it is done, before its window of $2 rows, with
// and without vectors; rowFoundSQL is turnFoundSQL for it.
var (
	turnRankSQL = [2]string{turnRankStatement(false), turnRankStatement(true)}
	rowFoundSQL = recallParams(strings.ReplaceAll(autoRecallFound(rowRecallRow), "{window}", "$2"), "", "$3", "", "")
)

// rowRecallRow is user row $1 for auto-recall, as turnRecallRow.
const rowRecallRow = `SELECT m.conversation_id, m.id, m.search_vector AS v FROM messages m WHERE m.id = $1`

func turnRankStatement(vectors bool) string {
	front := autoRecallFront(rowRecallRow)
	return recallParams(rankSQL(strings.ReplaceAll(front, "{window}", "$2"), vectors, false), "", "$3", "$4", "$5")
}

// rankRow runs turnRankSQL for row (its window of window rows) and r,
// after a found statement said it has rows to rank. Without r's
// embedding the semantic side has nothing to compare: full-text alone
// ranks the same.
func (s *Store) rankRow(ctx context.Context, row int64, window int, r Recall) ([]Snippet, error) {
	vectors := s.Vectors() && r.Embedding != nil
	var recalled []Snippet
	batch := &pgx.Batch{}
	batch.Queue(genericPlansSQL)
	queueRecall(batch, &recalled, turnRankSQL[vectorsIndex(vectors)],
		recallArgs(vectors, []any{row, window, r.Limit}, r.Embedding, r.EmbeddingModel)...)
	return recalled, s.pool.SendBatch(ctx, batch).Close()
}

// recallRow is the auto-recall of stored user row row, full-text alone
// (a retried turn's: its text is not embedded): rowFoundSQL, then
// turnRankSQL when it found something.
func (s *Store) recallRow(ctx context.Context, row int64, window, limit int) ([]Snippet, error) {
	found := false
	batch := &pgx.Batch{}
	batch.Queue(genericPlansSQL)
	batch.Queue(rowFoundSQL, row, window, limit).QueryRow(func(r pgx.Row) error { return r.Scan(&found) })
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil || !found {
		return nil, err
	}
	return s.rankRow(ctx, row, window, Recall{Limit: limit})
}

// turnRecallRow is the turn's user row for auto-recall: its conversation,
// id and stems. The stems are a subquery, not a join: a join of the
// one-row tables of a new bot was planned as a scan of all messages.
func turnRecallRow(thread string) string {
	return `SELECT r.conversation_id, r.id, (SELECT m.search_vector FROM messages m WHERE m.id = r.id) AS v
		FROM (` + turnUserRow(thread) + `) r`
}

func turnRecallFront(thread string) string {
	return strings.ReplaceAll(autoRecallFront(turnRecallRow(thread)), "{window}", "$3")
}

// receivedTextSQL logs the message_received event of the turn (topic $5).
var receivedTextSQL = `INSERT INTO events (type, telegram_user_id, chat_id, conversation_id, update_id, payload)
SELECT 'message_received', $3::bigint, $1::bigint, r.conversation_id, NULLIF($2::bigint, 0), jsonb_build_object('kind', $4::text)
FROM (` + turnUserRow("$5") + `) r
` + eventOncePerUpdate

const turnAnswerSQL = `SELECT ` + messageColumns + ` FROM messages
WHERE update_id = $1 AND role = 'assistant' AND tool_calls IS NULL ORDER BY id DESC LIMIT 1`

// asyncCommitSQL lets the transaction it begins commit without waiting for
// the disk. StartTurn uses it: were PostgreSQL to crash before its commit
// reached the disk, the turn would simply start again, since the update
// stays claimed and unfinished; and the next commit that does wait (the
// update's completion, or any other session's) flushes everything written
// before it. It saves a disk flush on the
// path of every reply (the final answer saves another: Step.FlushLater).
const asyncCommitSQL = `SELECT ` + asyncCommit

const asyncCommit = `set_config('synchronous_commit', 'off', true)`

// genericPlansSQL makes the statements after it in its transaction (a
// batch is one) run their prepared generic plans. PostgreSQL otherwise
// plans some of them again at every execution, their generic plan's
// estimate being above the plans made for each execution's values:
// recall statements (1.5 ms, more than the search itself), StartTurn's history
// query (0.2 ms), saveUpdateSQL (0.15 ms).
//
// A generic plan is made once, at a statement's first run on a connection
// (and again when the tables' statistics change), and then kept: for a new
// bot, or membench's fresh database, while the tables are all but empty,
// when reading a whole table costs less than one index lookup. Such a
// plan read the whole messages table twice in every auto-recall, for as
// long as the plan lived. So these statements are planned without
// sequential scans: each of them finds its rows through an index, as the
// plan tests check on a new database too (TestTurnPlansOnANewDatabase).
// And without JIT, whatever DATABASE_URL says: a sequential scan left
// where nothing else can read a table is costed at 10^10, which would
// make PostgreSQL compile the statement (12-73 ms) for a lookup of 0.1 ms.
const genericPlansSQL = `SELECT ` + genericPlans

const genericPlans = `set_config('plan_cache_mode', 'force_generic_plan', true), set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true)`

// StartTurn upserts the user, stores their message in the chat's current
// conversation, logs its arrival and loads the history, in one round trip
// (two when its auto-recall has rows to rank).
func (s *Store) StartTurn(ctx context.Context, in TurnStart) (*Turn, error) {
	t := &Turn{}
	batch := &pgx.Batch{}
	batch.Queue(`SELECT ` + asyncCommit + `, ` + genericPlans) // asyncCommitSQL and genericPlansSQL in one statement
	batch.Queue(upsertUserSQL, upsertUserArgs(in.User)...)
	var metadata any
	if len(in.Metadata) > 0 {
		metadata = cleanValue(in.Metadata)
	}
	kind := in.Kind
	if kind == "" {
		kind = "text"
	}
	chat := in.Chat
	batch.Queue(insertUserMessageSQL, chat.ID, in.User.TelegramUserID, cleanText(in.Content), in.TelegramMessageID, in.UpdateID, metadata, chat.Thread)
	batch.Queue(receivedTextSQL, chat.ID, in.UpdateID, in.User.TelegramUserID, kind, chat.Thread)
	batch.Queue(turnConversationSQL, chat.ID, in.UpdateID, chat.Thread).
		QueryRow(func(row pgx.Row) error {
			return row.Scan(&t.ConversationID, &t.UserMessageID, &t.Mode, &t.Model, &t.VoiceReplies, &t.Summary)
		})
	batch.Queue(turnHistorySQL, chat.ID, in.UpdateID, in.HistoryLimit, chat.Thread).Query(func(rows pgx.Rows) error {
		var err error
		t.History, err = pgx.CollectRows(rows, scanHistoryRow)
		return err
	})
	queueAnswer(batch, in.UpdateID, &t.Answer)
	queueFacts(batch, in.User.TelegramUserID, in.FactChars, &t.Facts)
	queueApprovals(batch, &t.Approvals, `chat_id = $1 AND (status = 'pending' OR update_id = NULLIF($2::bigint, 0))`,
		chat.ID, in.UpdateID)
	found := false
	if words := searchWords(in.Recall.Text); in.Recall.Limit > 0 && (words != "" || in.Recall.Embedding != nil) {
		args := []any{chat.ID, in.UpdateID, in.HistoryLimit, in.Recall.Limit}
		if s.Vectors() && in.Recall.Embedding != nil { // the semantic side ranks anyway
			queueRecall(batch, &t.Recalled, turnRecallSQL, append(recallArgs(true, args, in.Recall.Embedding, in.Recall.EmbeddingModel), chat.Thread)...)
		} else {
			batch.Queue(turnFoundSQL, append(args, chat.Thread)...).QueryRow(func(row pgx.Row) error { return row.Scan(&found) })
		}
	}
	err := s.pool.SendBatch(ctx, batch).Close()
	if err == nil && found { // a round trip more, after the turn's row is stored
		t.Recalled, err = s.rankRow(ctx, t.UserMessageID, in.HistoryLimit, in.Recall)
	}
	if err != nil {
		return nil, fmt.Errorf("start turn: %w", translate(err))
	}
	return t, nil
}

// queueRecall adds a turn's auto-recall statement to batch, its rows to *into.
func queueRecall(batch *pgx.Batch, into *[]Snippet, sql string, args ...any) {
	batch.Queue(sql, args...).Query(func(rows pgx.Rows) error {
		var err error
		*into, err = pgx.CollectRows(rows, pgx.RowToStructByName[Snippet])
		return err
	})
}

// queueAnswer adds to batch the query of the final answer already stored
// for the update, scanned into *dst.
func queueAnswer(batch *pgx.Batch, updateID int64, dst **Message) {
	if updateID == 0 {
		return
	}
	batch.Queue(turnAnswerSQL, updateID).Query(func(rows pgx.Rows) error {
		answer, err := pgx.CollectExactlyOneRow(rows, pgx.RowToAddrOfStructByName[Message])
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		*dst = answer
		return err
	})
}

// ResumeStart names a turn to continue once its approvals are decided.
type ResumeStart struct {
	UserID             int64
	ChatID             int64
	ConversationID     string
	AssistantMessageID int64 // the row whose tool calls waited for approval
	UpdateID           int64 // the update that carried the decision
	HistoryLimit       int
	FactChars          int
}

// resumeHistorySQL is the conversation's newest $2 rows plus the assistant
// row $3 and the results of its calls, however far back they are, oldest first.
const resumeHistorySQL = `SELECT ` + messageColumns + ` FROM messages WHERE id IN (
	(SELECT id FROM messages WHERE conversation_id = $1 ORDER BY id DESC LIMIT $2)
	UNION SELECT $3::bigint
	UNION SELECT id FROM messages WHERE conversation_id = $1 AND role = 'tool' AND id > $3
	      AND tool_call_id IN (SELECT c->>'id' FROM messages, jsonb_array_elements(tool_calls) c WHERE id = $3)
) ORDER BY id`

// ResumeTurn loads what a turn paused for approval needs to go on, in one
// round trip: History (the window, with the waiting assistant row and its
// results), the user row that began the turn, the answer already stored for
// the deciding update (if a crash cut the first attempt short), the user's
// facts, and the approvals of the assistant row and of the chat.
func (s *Store) ResumeTurn(ctx context.Context, in ResumeStart) (*Turn, error) {
	t := &Turn{ConversationID: in.ConversationID}
	batch := &pgx.Batch{}
	batch.Queue(resumeHistorySQL, in.ConversationID, in.HistoryLimit, in.AssistantMessageID).Query(func(rows pgx.Rows) error {
		var err error
		t.History, err = pgx.CollectRows(rows, pgx.RowToStructByName[Message])
		return err
	})
	batch.Queue(`SELECT coalesce(max(id), 0) FROM messages WHERE conversation_id = $1 AND role = 'user' AND id < $2`,
		in.ConversationID, in.AssistantMessageID).QueryRow(func(row pgx.Row) error { return row.Scan(&t.UserMessageID) })
	queueAnswer(batch, in.UpdateID, &t.Answer)
	queueFacts(batch, in.UserID, in.FactChars, &t.Facts)
	queueApprovals(batch, &t.Approvals, `assistant_message_id = $1 OR (chat_id = $2 AND status = 'pending')`,
		in.AssistantMessageID, in.ChatID)
	queueMode(batch, in.ConversationID, &t.Mode)
	queueModel(batch, in.ConversationID, &t.Model)
	queueSummary(batch, "$1::uuid", &t.Summary, in.ConversationID)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return nil, fmt.Errorf("resume turn: %w", translate(err))
	}
	return t, nil
}
