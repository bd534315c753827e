package openaifake

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"unicode"
)

// The fake's /v1/embeddings. Its vectors make semantic similarity mean
// something in tests, deterministically: a text is a hashed bag of its
// words' crude stems (their first five letters), and the words of a
// synonym group (Synonyms) share one dimension, so "trip" is near
// "travelled" and "поездка" near "ездил", which no full-text stemmer joins.

// EmbeddingDims is the length of the fake's vectors.
const EmbeddingDims = 256

// Synonyms are the groups of words the fake embeds alike; a word belongs to
// a group when it begins with one of the group's stems.
var Synonyms = [][]string{
	{"trip", "travel", "journey", "voyage", "visit", "flew", "fly", "flight", "поездк", "ездил", "съездил", "путешеств", "летал", "полет"},
	{"job", "work", "employ", "career", "office", "hired", "работ", "служб", "устроил"},
	{"home", "house", "apartment", "flat", "live", "lives", "living", "moved", "move", "address", "живу", "живет", "переехал", "квартир", "дом"},
	{"dog", "puppy", "pet", "cat", "kitten", "собак", "щен", "кошк", "кот", "питом"},
	{"doctor", "clinic", "hospital", "dentist", "sick", "ill", "health", "врач", "больниц", "болел", "здоров"},
	{"wife", "husband", "partner", "married", "spouse", "girlfriend", "boyfriend", "жена", "муж", "женил", "замуж", "подруг"},
	{"car", "drive", "drove", "vehicle", "машин", "автомоб", "водит"},
	{"birthday", "born", "anniversary", "рожден", "родил"},
	{"food", "eat", "cook", "dish", "meal", "dinner", "lunch", "favorite", "favourite", "еда", "готов", "блюд", "ужин", "обед", "любим"},
	{"sport", "run", "running", "gym", "swim", "yoga", "football", "tennis", "спорт", "бег", "плава", "йог", "футбол", "теннис"},
	{"study", "school", "university", "course", "learn", "exam", "учеб", "учус", "школ", "университет", "курс", "экзамен"},
	{"money", "salary", "pay", "price", "cost", "budget", "деньг", "зарплат", "плат", "цен", "бюджет"},
}

// fakeStopWords carry no meaning in the fake's vectors.
var fakeStopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but of to in on at for with by from is are was were be been am i you he she it we they my your his her our their me what when where who how did do does have has had this that these those
		и в во на с со к по за из у о об а но или что как где когда кто я ты он она мы вы они мой моя мое мои твой был была были это то ли же не`) {
		fakeStopWords[w] = true
	}
}

// embeddingCalls counts the fake's embeddings requests, for tests.
var embeddingCalls atomic.Int64

// EmbeddingCalls is how many embeddings requests all fakes have answered.
func EmbeddingCalls() int64 { return embeddingCalls.Load() }

// Embed is the fake's vector of text, of length EmbeddingDims and norm 1
// (the zero vector for a text without words).
func Embed(text string) []float32 {
	v := make([]float64, EmbeddingDims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if fakeStopWords[w] || len([]rune(w)) < 2 {
			continue
		}
		key := synonymKey(w)
		h := fnv.New32a()
		h.Write([]byte(key))
		sum := h.Sum32()
		sign := 1.0
		if sum&1 == 1 {
			sign = -1
		}
		v[(sum>>1)%EmbeddingDims] += sign
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, EmbeddingDims)
	if norm == 0 {
		out[0] = 1 // pgvector's cosine distance needs a non-zero vector
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

// synonymKey is the dimension key of a word: its synonym group, or its stem.
func synonymKey(w string) string {
	for i, group := range Synonyms {
		for _, stem := range group {
			if strings.HasPrefix(w, stem) {
				return "group" + string(rune('a'+i))
			}
		}
	}
	r := []rune(w)
	if len(r) > 5 {
		r = r[:5]
	}
	return string(r)
}

// serveEmbeddings answers POST /v1/embeddings as OpenAI does, for input
// given as a string or a list of strings.
func (s *Server) serveEmbeddings(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
		http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	var inputs []string
	if err := json.Unmarshal(req.Input, &inputs); err != nil {
		var one string
		if json.Unmarshal(req.Input, &one) != nil {
			http.Error(w, `{"error":{"message":"input must be a string or a list of strings","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		inputs = []string{one}
	}
	embeddingCalls.Add(1)
	type datum struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	resp := struct {
		Object string         `json:"object"`
		Data   []datum        `json:"data"`
		Model  string         `json:"model"`
		Usage  map[string]int `json:"usage"`
	}{Object: "list", Model: req.Model}
	tokens := 0
	for i, in := range inputs {
		if strings.TrimSpace(in) == "" {
			http.Error(w, `{"error":{"message":"input cannot be an empty string","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		resp.Data = append(resp.Data, datum{Object: "embedding", Index: i, Embedding: Embed(in)})
		tokens += len(strings.Fields(in))
	}
	resp.Usage = map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}
