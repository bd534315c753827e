package seed

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/membot/membot/internal/stamp"
)

// turnSource generates the message rows turn by turn, in time order, for
// COPY; nothing is held in memory beyond the current turn.
type turnSource struct {
	h      *history
	tgIDs  []int64 // the last Telegram message id of each chat
	moscow *time.Location
	next   int     // the next turn in h.order
	upd    int64   // the last update id given out
	rows   [][]any // the current turn's rows not yet returned
	row    []any
}

func (s *turnSource) Next() bool {
	if len(s.rows) == 0 {
		if s.next >= len(s.h.order) {
			return false
		}
		s.rows = s.turn(int(s.h.order[s.next]), s.next)
		s.next++
		if p := s.h.plan.Progress; p != nil && s.next%100_000 == 0 {
			p(int64(float64(s.next) * rowsPerTurn))
		}
	}
	s.row, s.rows = s.rows[0], s.rows[1:]
	return true
}

func (s *turnSource) Values() ([]any, error) { return s.row, nil }
func (s *turnSource) Err() error             { return nil }

// turn is the rows of one exchange in chat: the user's message, and the
// answer, with a calculator call before it in one turn of ten.
func (s *turnSource) turn(chat, n int) [][]any {
	h := s.h
	conv := h.convs[chat]
	at := h.start.Add(time.Duration(float64(h.span) * float64(n) / float64(len(h.order))))
	s.upd++
	update := h.firstUpd + s.upd
	s.tgIDs[chat]++
	userText := h.sentence(4, 40)
	rows := [][]any{{conv, "user", stamp.Add(at, s.moscow, userText), nil, nil, nil, s.tgIDs[chat], update, "{}", at}}
	at = at.Add(time.Duration(500+h.rng.IntN(2500)) * time.Millisecond)
	meta := func(completion int) string {
		return fmt.Sprintf(`{"model":"gpt-4o-mini","prompt_tokens":%d,"completion_tokens":%d,"latency_ms":%d}`,
			200+h.rng.IntN(3000), completion, 400+h.rng.IntN(4000))
	}
	tool := h.rng.IntN(10) == 0
	if tool {
		call := fmt.Sprintf("call_%d", update)
		args := fmt.Sprintf(`{"expression":"%d*%d"}`, h.rng.IntN(1000), h.rng.IntN(1000))
		calls := fmt.Sprintf(`[{"id":%q,"name":"calculator","arguments":%q}]`, call, args)
		rows = append(rows,
			[]any{conv, "assistant", "", calls, nil, nil, nil, update, meta(20), at},
			[]any{conv, "tool", fmt.Sprint(h.rng.IntN(1_000_000)), nil, call, "calculator", nil, update, `{"duration_ms":0}`, at.Add(time.Millisecond)})
		at = at.Add(time.Duration(500+h.rng.IntN(2000)) * time.Millisecond)
	}
	answer := h.sentence(10, 160)
	s.tgIDs[chat]++
	answerMeta := strings.TrimSuffix(meta(len(answer)/4), "}") + fmt.Sprintf(`,"telegram_message_ids":[%d]}`, s.tgIDs[chat])
	rows = append(rows, []any{conv, "assistant", answer, nil, nil, nil, s.tgIDs[chat], update, answerMeta, at})
	if tool {
		rows = append(rows, []any{conv, "system", "Tools used: calculator", nil, nil, nil, nil, update, "{}", at.Add(time.Millisecond)})
	}
	return rows
}

// sentence is lo to hi words of chat-like text, Russian or English: about
// half of them the language's most common words, the others drawn from a
// long vocabulary with Zipf's law, as words are in real text, so that a
// full-text search for an ordinary word matches as few rows as it would.
func (h *history) sentence(lo, hi int) string {
	lang := &english
	if h.rng.IntN(3) > 0 {
		lang = &russian
	}
	if h.zipf == nil {
		h.zipf = rand.NewZipf(h.rng, 1.1, 1, vocabulary-1)
	}
	n := lo + h.rng.IntN(hi-lo+1)
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		if h.rng.IntN(2) == 0 {
			b.WriteString(lang.common[h.rng.IntN(len(lang.common))])
		} else {
			rank := int(h.zipf.Uint64())
			w := lang.realWord(rank, h.rng)
			if w == "" {
				w = lang.word(rank)
			}
			b.WriteString(w)
		}
	}
	b.WriteByte('.')
	return b.String()
}

// vocabulary is how many content words each language has.
const vocabulary = 20_000

// language is the words of one language: its commonest, and syllables to
// spell the rest.
type language struct {
	common    []string
	syllables []string
	real      *inflected // the most frequent content words, inflected (vocab.go)
}

// word is the content word of the given frequency rank (0 is the most
// frequent): the same word for the same rank, whatever the seed.
func (l *language) word(rank int) string {
	var b strings.Builder
	n := len(l.syllables)
	for rank++; rank > 0; rank /= n {
		b.WriteString(l.syllables[rank%n])
	}
	if b.Len() < 4 {
		b.WriteString(l.syllables[0])
	}
	return b.String()
}

// SearchWords is a search for two content words of the given ranks (in
// Russian, the language of two chats in three) in seeded text.
func SearchWords(rank1, rank2 int) string {
	return russian.word(rank1) + " " + russian.word(rank2)
}

var english = language{
	common: strings.Fields(`the a to and of in is it you that for on with this be are as can I what how
do my not your at have but or if will about me from so we time day today tomorrow please thanks`),
	syllables: strings.Fields(`ba be bi bo ca ce co da de di do fa fe fi ga ge go ha he hi ka ke ki la le li lo
ma me mi mo na ne ni no pa pe pi po ra re ri ro sa se si so ta te ti to va ve vi wa we za`),
	real: &englishWords,
}

var russian = language{
	common: strings.Fields(`и в не на что я с он как это по но из у за то все она так его же от
мне бы когда уже вот ты если да нет был до сегодня завтра время спасибо можно нужно`),
	syllables: strings.Fields(`ба бе би бо бу ва ве ви во га ге го да де ди до ду жа же за зе зи зо ка ке ки ко ку
ла ле ли ло лу ма ме ми мо му на не ни но ну па пе пи по ра ре ри ро ру са се си со та те ти то ту ча че чи`),
	real: &russianWords,
}

var firstNames = strings.Fields(`Анна Иван Мария Алексей Ольга Дмитрий Елена Сергей Наталья Андрей
Anna John Maria Alex Olga Peter Helen Sam Kate Mike`)
