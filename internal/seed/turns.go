package seed

import (
	"fmt"
	"strings"
	"time"

	"github.com/membot/membot/agent"
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
	rows := [][]any{{conv, "user", agent.Stamp(at, s.moscow, userText), nil, nil, nil, s.tgIDs[chat], update, "{}", at}}
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

// sentence is lo to hi words of chat-like text, Russian or English.
func (h *history) sentence(lo, hi int) string {
	words := wordsEN
	if h.rng.IntN(3) > 0 {
		words = wordsRU
	}
	n := lo + h.rng.IntN(hi-lo+1)
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[h.rng.IntN(len(words))])
	}
	b.WriteByte('.')
	return b.String()
}

var wordsEN = strings.Fields(`the a to and of in is it you that for on with this be are as can I what how
do my not your at have but or if will about me from so we time day today tomorrow please thanks weather
dinner recipe meeting remind call work home trip train ticket price money budget plan list idea question
answer help write letter email translate summary book film music friend family birthday gift weekend
morning evening night week month year best good better quick simple short long new old more less`)

var wordsRU = strings.Fields(`и в не на что я с он как это по но из у за то все она так его же от
мне бы когда уже вот ты если да нет был до сегодня завтра время погода ужин рецепт встреча напомни
позвонить работа дом поездка поезд билет цена деньги бюджет план список идея вопрос ответ помоги
написать письмо перевести кратко книга фильм музыка друг семья день рождения подарок выходные утро
вечер ночь неделя месяц год лучше хорошо быстро просто коротко новый старый больше меньше спасибо`)

var firstNames = strings.Fields(`Анна Иван Мария Алексей Ольга Дмитрий Елена Сергей Наталья Андрей
Anna John Maria Alex Olga Peter Helen Sam Kate Mike`)
