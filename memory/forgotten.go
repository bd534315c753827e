package memory

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// A forgotten fact leaves a tombstone (forgotten_facts): the fact said
// again, by the user or by the bot in a later answer, is known as it, so
// that forgetting means the fact and not the one row it was read from.
// The tombstone keeps no text, only a keyed hash of each key word: the
// table, an export or a prompt shows nothing of what was forgotten. (A
// short code, such as a 4-digit PIN, can still be found by hashing every
// value with the key in the source: the hash hides the text from a reader,
// not from someone who sets out to recover it.)

// Tombstone is what is kept of a forgotten fact: the hashes of its key
// words (Terms), and how many of them a text must hold to state the fact
// again (Need).
type Tombstone struct {
	Terms []string `db:"terms"`
	Need  int      `db:"need"`
}

// maxTerms bounds a tombstone (the table checks it too).
const maxTerms = 16

// Bury makes the tombstone of a fact's text; ok is false when the text has
// no key word. A word is a run of letters and digits, in lower case; a key
// word has 3 characters or more and is not a common one ("the", "lives",
// "пользователь"). When key words hold digits (a PIN, a code, a number,
// a date) they are the fact's secret: a text that holds all of them states
// it. Otherwise a text states it when it holds two thirds of the key words.
func Bury(fact string) (t Tombstone, ok bool) {
	kw := keyWords(fact)
	var digits []string
	for _, w := range kw {
		if strings.ContainsFunc(w, unicode.IsDigit) {
			digits = append(digits, w)
		}
	}
	if len(digits) > 0 {
		kw = digits
	}
	if len(kw) > maxTerms {
		kw = kw[:maxTerms]
	}
	if len(kw) == 0 {
		return Tombstone{}, false
	}
	t.Need = len(kw)
	if len(digits) == 0 {
		t.Need = max(1, (2*len(kw)+2)/3)
	}
	for _, w := range kw {
		t.Terms = append(t.Terms, termHash(w))
	}
	return t, true
}

// Stated tells whether text states one of the forgotten facts.
func Stated(tombs []Tombstone, text string) bool {
	if len(tombs) == 0 {
		return false
	}
	held := map[string]bool{}
	for _, w := range wordsOf(text) {
		held[termHash(w)] = true
	}
	for _, t := range tombs {
		n := 0
		for _, h := range t.Terms {
			if held[h] {
				n++
			}
		}
		if n >= t.Need {
			return true
		}
	}
	return false
}

// termKey keys the hashes, so that a tombstone's terms are not the plain
// SHA-256 of a word that any table of hashes would give away.
var termKey = []byte("membot forgotten fact v1")

func termHash(word string) string {
	m := hmac.New(sha256.New, termKey)
	m.Write([]byte(word))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// wordsOf splits text into its words, in lower case.
func wordsOf(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// keyWords are the distinct words of text that can tell its fact apart.
func keyWords(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range wordsOf(text) {
		if utf8.RuneCountInString(w) < 3 || commonWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// commonWords are words that say nothing of which fact it is: the ones
// facts are written with ("Lives in Kazan", "Пользователь любит кофе").
var commonWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the and for with has have had are was were his her hers him their they them this that these
		those who whom which what when where not but from into onto about your you yours our its own owns user users
		lives lived living likes liked loves loved works worked working wants wanted named called name has does did
		will would can could should been being also very much more most some any all one two three
		это что как для его она они оно был была были было есть нет так там тут где когда кто который которая
		пользователь пользователя пользователю живёт живет жил жила любит любила любил работает работал работала
		хочет хотел хотела зовут имеет имел имела свой своя свои своё свое тоже очень ещё еще уже`) {
		m[w] = true
	}
	return m
}()

// bury keeps the tombstones of the forgotten facts' texts (their current
// text and every version it superseded) and marks forgotten every row of
// the user's private chat that states one, within tx: the answer that
// repeated a fact as well as the exchange it was read from.
func bury(ctx context.Context, tx pgx.Tx, userID int64, texts []string) error {
	var tombs []Tombstone
	batch := &pgx.Batch{}
	for _, text := range texts {
		if t, ok := Bury(text); ok {
			tombs = append(tombs, t)
			batch.Queue(buryFactSQL, userID, t.Terms, t.Need)
		}
	}
	if len(tombs) == 0 {
		return nil
	}
	if err := tx.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("keep tombstones: %w", err)
	}
	rows, err := tx.Query(ctx, privateRowsSQL, userID)
	if err != nil {
		return fmt.Errorf("read the private chat: %w", err)
	}
	var stating []int64
	var id int64
	var text string
	if _, err := pgx.ForEachRow(rows, []any{&id, &text}, func() error {
		if Stated(tombs, text) {
			stating = append(stating, id)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("read the private chat: %w", err)
	}
	if len(stating) > 0 {
		if _, err := tx.Exec(ctx, forgetRowsSQL, stating); err != nil {
			return fmt.Errorf("mark rows forgotten: %w", err)
		}
	}
	return nil
}

// Tombstones returns the user's tombstones, newest first (at most 1,000).
func (s LongTerm) Tombstones(ctx context.Context, userID int64) ([]Tombstone, error) {
	rows, err := s.pool.Query(ctx, tombstonesSQL, userID)
	if err == nil {
		var tombs []Tombstone
		if tombs, err = pgx.CollectRows(rows, pgx.RowToStructByName[Tombstone]); err == nil {
			return tombs, nil
		}
	}
	return nil, fmt.Errorf("tombstones: %w", translate(err))
}

// ForgetRows marks the rows of conversationID from fromID to toID (an
// exchange) forgotten: what the memory work does with a later exchange
// that states a forgotten fact again.
func (s LongTerm) ForgetRows(ctx context.Context, conversationID string, fromID, toID int64) error {
	if _, err := s.pool.Exec(ctx, forgetExchangeSQL, conversationID, fromID, toID); err != nil {
		return fmt.Errorf("forget rows: %w", translate(err))
	}
	return nil
}

// queueTombstones adds to batch the user's tombstones, scanned into t:
// the turn leaves out the rows that state a forgotten fact, and the
// prompt says how many there are.
func queueTombstones(batch *pgx.Batch, userID int64, t *Turn) {
	batch.Queue(tombstonesSQL, userID).Query(func(rows pgx.Rows) error {
		var err error
		t.Tombstones, err = pgx.CollectRows(rows, pgx.RowToStructByName[Tombstone])
		t.Forgotten = len(t.Tombstones)
		return err
	})
}

// The statements of this file, whole in sql/forgotten.sql.
var (
	buryFactSQL       = statement("buryFact")
	privateRowsSQL    = statement("privateRows")
	forgetRowsSQL     = statement("forgetRows")
	tombstonesSQL     = statement("tombstones")
	forgetExchangeSQL = statement("forgetExchange")
)
