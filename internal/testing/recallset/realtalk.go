package recallset

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The public set: REALTALK (Lee et al. 2025, "REALTALK: A 21-Day
// Real-World Dataset for Long-Term Conversation", arXiv 2502.13270), ten
// messaging-app conversations of two people over three weeks each, with
// questions whose evidence is annotated turn by turn. Its files are not
// part of this repository: BENCHMARKS.md says where to get them.

// REALTALK's question categories, as its evaluation code reads them (the
// numbering is LoCoMo's; REALTALK has no single-hop or adversarial ones).
const (
	MultiHop   = "multi-hop"   // category 1: several turns together
	OpenDomain = "open-domain" // category 3: inferred with world knowledge
	// Category 2 is Temporal: when, or a fact tied to a date.
)

var realtalkKinds = map[int]string{1: MultiHop, 2: Temporal, 3: OpenDomain}

// Bounds on a dataset file, which is input from outside.
const (
	maxRealTalkBytes = 16 << 20
	maxRealTalkTurns = 20000
	maxTurnChars     = 4000 // a Telegram message holds 4,096
	maxQuestions     = 2000
	maxEvidence      = 50
)

// realtalkFile is the part of a REALTALK file the benchmark reads.
// Sessions are the keys "session_N" (a list of turns); the other keys
// (events, dates, persona) are ignored.
type realtalkTurn struct {
	Text     string `json:"clean_text"`
	Speaker  string `json:"speaker"`
	DateTime string `json:"date_time"` // "29.12.2023, 22:42:04"
	DiaID    string `json:"dia_id"`    // "D1:3", unique in the file
}

type realtalkQA struct {
	Question string   `json:"question"`
	Evidence []string `json:"evidence"`
	Category int      `json:"category"`
}

// ReadRealTalk parses one REALTALK conversation. Each turn becomes a user
// message "Speaker: text" (the bot's user is the transcript, both
// speakers); a question's evidence ids become the indexes of those turns.
// Evidence ids that name no turn of the file (the dataset has some) are
// left out, and a question left with no evidence is dropped.
func ReadRealTalk(r io.Reader) (Conversation, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxRealTalkBytes+1))
	if err != nil {
		return Conversation{}, err
	}
	if len(data) > maxRealTalkBytes {
		return Conversation{}, fmt.Errorf("larger than %d bytes", maxRealTalkBytes)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Conversation{}, err
	}
	// Sessions in their order (session_2 before session_10).
	var sessions []int
	for k := range raw {
		if n, ok := strings.CutPrefix(k, "session_"); ok {
			if i, err := strconv.Atoi(n); err == nil {
				sessions = append(sessions, i)
			}
		}
	}
	sort.Ints(sessions)
	var c Conversation
	index := map[string]int{}
	for _, s := range sessions {
		var turns []realtalkTurn
		if err := json.Unmarshal(raw[fmt.Sprintf("session_%d", s)], &turns); err != nil {
			return Conversation{}, fmt.Errorf("session_%d: %w", s, err)
		}
		for _, t := range turns {
			text := strings.TrimSpace(t.Text)
			if text == "" {
				continue // a photo alone: nothing to search
			}
			at, err := time.Parse("02.01.2006, 15:04:05", t.DateTime)
			if err != nil {
				return Conversation{}, fmt.Errorf("turn %s: %w", t.DiaID, err)
			}
			if len(c.Turns) == maxRealTalkTurns {
				return Conversation{}, fmt.Errorf("more than %d turns", maxRealTalkTurns)
			}
			text = t.Speaker + ": " + text
			if len(text) > maxTurnChars {
				n := maxTurnChars
				for !utf8.RuneStart(text[n]) {
					n--
				}
				text = text[:n]
			}
			index[t.DiaID] = len(c.Turns)
			c.Turns = append(c.Turns, Turn{Text: text, At: at})
		}
	}
	if len(c.Turns) == 0 {
		return Conversation{}, errors.New("no turns")
	}
	var qas []realtalkQA
	if q, ok := raw["qa"]; ok {
		if err := json.Unmarshal(q, &qas); err != nil {
			return Conversation{}, fmt.Errorf("qa: %w", err)
		}
	}
	if len(qas) > maxQuestions {
		return Conversation{}, fmt.Errorf("more than %d questions", maxQuestions)
	}
	for _, qa := range qas {
		kind, ok := realtalkKinds[qa.Category]
		text := strings.Join(strings.Fields(qa.Question), " ")
		if !ok || text == "" || len(qa.Evidence) > maxEvidence {
			continue
		}
		q := Question{Text: text, Keywords: KeyWords(text), Kind: kind}
		seen := map[int]bool{}
		for _, id := range qa.Evidence {
			if i, ok := index[strings.TrimSpace(id)]; ok && !seen[i] {
				seen[i] = true
				q.Evidence = append(q.Evidence, i)
			}
		}
		if len(q.Evidence) > 0 {
			c.Questions = append(c.Questions, q)
		}
	}
	return c, nil
}

// LoadRealTalk reads the REALTALK conversations at paths, a list separated
// by the system's list separator (":" on Linux) of files and directories;
// of a directory it reads the *.json files directly inside, in name order.
func LoadRealTalk(paths string) ([]Conversation, error) {
	var files []string
	for _, p := range filepath.SplitList(paths) {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		in, err := filepath.Glob(filepath.Join(p, "*.json"))
		if err != nil {
			return nil, err
		}
		files = append(files, in...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no .json files in %q", paths)
	}
	var out []Conversation
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		c, err := ReadRealTalk(fh)
		fh.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, c)
	}
	return out, nil
}
