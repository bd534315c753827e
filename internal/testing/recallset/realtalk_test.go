package recallset_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/membot/membot/internal/testing/recallset"
)

func TestReadRealTalkMapsTurnsEvidenceAndCategories(t *testing.T) {
	set, err := recallset.LoadRealTalk("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if len(set) != 1 {
		t.Fatalf("%d conversations in testdata, want the sample alone", len(set))
	}
	c := set[0]
	var texts []string
	for _, turn := range c.Turns {
		texts = append(texts, turn.Text[:strings.Index(turn.Text, ":")])
	}
	// The photo without text (D1:3) is no turn.
	if want := []string{"Anna", "Boris", "Anna", "Anna", "Boris", "Anna"}; !reflect.DeepEqual(texts, want) {
		t.Fatalf("speakers %v, want %v", texts, want)
	}
	if c.Turns[2].Text != "Anna: That sounds relaxing. My cat says hello, by the way." {
		t.Errorf("turn 2: %q", c.Turns[2].Text)
	}
	if want := time.Date(2024, 3, 9, 8, 21, 37, 0, time.UTC); !c.Turns[4].At.Equal(want) {
		t.Errorf("turn 4 at %v, want %v", c.Turns[4].At, want)
	}
	// D9:99 names no turn; the open-domain question's only evidence names
	// none; category 5 (adversarial, LoCoMo's) is no kind of REALTALK's.
	want := []recallset.Question{
		{Text: "What did Boris make in his pottery class?", Keywords: "boris make pottery class", Kind: recallset.MultiHop, Evidence: []int{1, 4}},
		{Text: "When did Anna travel to Lisbon?", Keywords: "anna travel lisbon", Kind: recallset.Temporal, Evidence: []int{3}},
	}
	if !reflect.DeepEqual(c.Questions, want) {
		t.Fatalf("questions\n%+v\nwant\n%+v", c.Questions, want)
	}
}

func TestReadRealTalkRefusesWhatIsNotAConversation(t *testing.T) {
	for name, in := range map[string]string{
		"not JSON":       `[1, 2`,
		"no turns":       `{"session_1": [], "qa": []}`,
		"a bad date":     `{"session_1": [{"clean_text": "hi", "speaker": "A", "date_time": "yesterday", "dia_id": "D1:1"}]}`,
		"a bad session":  `{"session_1": {"clean_text": "hi"}}`,
		"questions as a": `{"session_1": [{"clean_text": "hi", "speaker": "A", "date_time": "01.01.2024, 10:00:00", "dia_id": "D1:1"}], "qa": "x"}`,
	} {
		if _, err := recallset.ReadRealTalk(strings.NewReader(in)); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
	huge := `{"pad": "` + strings.Repeat("x", 17<<20) + `"}`
	if _, err := recallset.ReadRealTalk(strings.NewReader(huge)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a 17 MiB file: %v", err)
	}
}

func TestKeyWordsLeaveOutStopWords(t *testing.T) {
	for q, want := range map[string]string{
		"What are Kate's hobbies?":                         "kate hobbies",
		"When did Kevin cook with his mom?":                "kevin cook mom",
		"Which cities have both, Kate and Elise, been to?": "cities kate elise",
		"What is it?": "what is it",
	} {
		if got := recallset.KeyWords(q); got != want {
			t.Errorf("KeyWords(%q) = %q, want %q", q, got, want)
		}
	}
}
