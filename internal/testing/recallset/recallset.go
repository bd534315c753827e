// Package recallset generates the long-conversation recall benchmark
// (BENCHMARKS.md "Recall"): conversations of hundreds of turns
// between a user and the bot over simulated months, with facts about the
// user planted among small talk, some of which change over time, and
// questions tied to the turns that answer them. The same seed gives the
// same set. It also reads a public set in the same types (realtalk.go),
// and holds what both benchmarks measure with (measure.go, bm25.go).
package recallset

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Turn is one user message of a conversation.
type Turn struct {
	Text string
	At   time.Time // simulated
	// Attr and Fact are set on the turns that state a fact about the
	// user: what it is about ("home") and the fact as a memory would keep
	// it ("Home: lives in Kazan"). The benchmark's extractor knows them.
	Attr, Fact string
}

// Question kinds.
const (
	Single   = "single"   // a fact stated once, or its newest value
	Changed  = "changed"  // a value the user later changed ("before")
	Multi    = "multi"    // two facts, two turns
	Temporal = "temporal" // when something was said
)

// Question is asked after the conversation; Evidence are the indexes of
// the turns that answer it.
type Question struct {
	Text     string
	Keywords string // the question's key words only
	Kind     string
	Evidence []int
}

// Conversation is one user's history and the questions about it.
type Conversation struct {
	Turns     []Turn
	Questions []Question
}

// attribute is one kind of fact, with the values it takes over time and
// how it is stated and asked about.
type attribute struct {
	name     string
	values   []string
	state    []string // %s is the value
	fact     string   // %s is the value
	ask      []string // a question about its newest value
	keywords string
	before   string // %s is the newer value: asks for the older one
	when     string // asks when it was said
}

var attributes = []attribute{
	{name: "Home", values: []string{"Kazan", "Perm", "Samara", "Tver", "Omsk", "Sochi"},
		state: []string{"We finally moved to %s, the new flat is great", "I live in %s these days, near the river"},
		fact:  "lives in %s", ask: []string{"Where is my home now?", "Which city do I live in?"}, keywords: "home city",
		before: "Where did I live before %s?", when: "When did I move house?"},
	{name: "Job", values: []string{"Yandex", "a bakery", "the city hospital", "a bank", "a design studio"},
		state: []string{"I got hired at %s last week", "Started my new position at %s today"},
		fact:  "works at %s", ask: []string{"Where do I work?", "What is my job?"}, keywords: "work job",
		before: "Where was I employed before %s?", when: "When did I change jobs?"},
	{name: "Pet", values: []string{"Rex", "Baxter", "Luna", "Tuzik"},
		state: []string{"We adopted a puppy and named him %s", "Our new puppy is called %s, he chews everything"},
		fact:  "has a dog named %s", ask: []string{"What is my dog called?", "What is the name of my pet?"}, keywords: "dog name",
		before: "What was my pet called before %s?", when: "When did we get the puppy?"},
	{name: "Car", values: []string{"Skoda Octavia", "Lada Vesta", "Toyota Corolla", "Kia Rio"},
		state: []string{"I bought a used %s, drives like new", "Just sold the old one and got a %s"},
		fact:  "drives a %s", ask: []string{"What vehicle do I have?", "Which car do I drive?"}, keywords: "car",
		before: "What did I drive before the %s?", when: "When did I buy the car?"},
	{name: "Trip", values: []string{"Tokyo", "Istanbul", "Baku", "Riga", "Tbilisi"},
		state: []string{"Next month I am flying to %s for a conference", "Booked tickets to %s, leaving in three weeks"},
		fact:  "plans a trip to %s", ask: []string{"Where is my next journey?", "Where am I travelling?"}, keywords: "trip travel",
		before: "Where was I travelling before %s?", when: "When did I book the flight?"},
	{name: "Food", values: []string{"borscht", "pelmeni", "sushi", "plov", "lasagne"},
		state: []string{"My favourite dish is %s, I could eat it daily", "Honestly nothing beats %s for dinner"},
		fact:  "loves %s", ask: []string{"What meal do I like best?", "What is my favourite food?"}, keywords: "favourite food",
		before: "What did I love to eat before %s?", when: "When did I talk about my favourite dish?"},
	{name: "Sport", values: []string{"swimming", "tennis", "yoga", "football"},
		state: []string{"I started going to %s classes on Tuesdays", "Signed up for %s at the gym"},
		fact:  "does %s", ask: []string{"What sport do I do?", "Which exercise do I practise?"}, keywords: "sport",
		before: "What sport did I do before %s?", when: "When did I sign up for the gym?"},
	{name: "Partner", values: []string{"Olga", "Marina", "Kate"},
		state: []string{"My girlfriend %s says hello", "%s and I are getting married in June"},
		fact:  "partner is %s", ask: []string{"What is my wife's name?", "Who is my partner?"}, keywords: "partner name",
		when: "When did I mention my girlfriend?"},
	{name: "Doctor", values: []string{"a toothache", "my knee", "a bad cough"},
		state: []string{"Went to the clinic today about %s", "Saw the dentist about %s this morning"},
		fact:  "saw a doctor about %s", ask: []string{"Why did I visit the hospital?"}, keywords: "doctor",
		when: "When did I see the doctor?"},
	{name: "Study", values: []string{"Spanish", "data science", "piano"},
		state: []string{"I enrolled in a %s course at the university", "My %s lessons start on Monday"},
		fact:  "studies %s", ask: []string{"What am I learning?"}, keywords: "study course",
		before: "What did I study before %s?", when: "When did I start the course?"},
}

// filler is small talk, much of it in the facts' own words, so that the
// words of a question are not enough to find its answer.
var filler = []string{
	"The weather is grey again today", "Work was long and boring today", "Any ideas for a quiet weekend?",
	"My colleague's dog barked all night", "Read an article about electric cars", "The city is full of tourists now",
	"I should drink more water", "Watched a documentary about space", "What is a good name for a cat?",
	"My neighbour moved out yesterday", "Traffic was terrible this morning", "I need a new phone case",
	"Thinking about learning to cook", "The train was late again", "Found a nice cafe near the office",
	"My friend is travelling a lot these days", "Do you know any good podcasts?", "I slept badly, too hot",
	"My sister visited the hospital for a check-up", "The football match was boring", "Prices in the shop went up",
	"I love long walks in the evening", "Tell me a joke", "How do I make a good cup of tea?",
	"The kids next door play music loudly", "Should I paint the kitchen blue?", "Bought new running shoes",
	"My boss is on holiday", "The lake was frozen this morning", "I am thinking about a new hobby",
}

// Sizes of a set.
type Sizes struct {
	Conversations int
	MinTurns      int
	MaxTurns      int
	Questions     int // at most, per conversation (0: all)
}

// Full is the set BENCHMARKS.md reports; Small is what CI runs.
var (
	Full  = Sizes{Conversations: 10, MinTurns: 300, MaxTurns: 600}
	Small = Sizes{Conversations: 1, MinTurns: 120, MaxTurns: 120, Questions: 40}
)

// Generate makes the set of seed.
func Generate(seed uint64, sz Sizes) []Conversation {
	rng := rand.New(rand.NewPCG(seed, 0x7265636131))
	out := make([]Conversation, sz.Conversations)
	for i := range out {
		out[i] = generate(rng, sz)
	}
	return out
}

// statement is a fact stated at turn index.
type statement struct {
	attr  *attribute
	value string
	turn  int
}

func generate(rng *rand.Rand, sz Sizes) Conversation {
	n := sz.MinTurns + rng.IntN(sz.MaxTurns-sz.MinTurns+1)
	start := time.Date(2025, 1, 6, 9, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(30*24)) * time.Hour)
	step := 8 * 30 * 24 * time.Hour / time.Duration(n) // about eight months
	// Which turns state facts: every attribute 1 to 3 times (values
	// differ), spread over the conversation, never in the last 40 turns
	// (the window would hold them: nothing to measure).
	var stated []statement
	for i := range attributes {
		a := &attributes[i]
		times := 2 + rng.IntN(2)
		if a.before == "" {
			times = 1
		}
		vals := rng.Perm(len(a.values))[:min(times, len(a.values))]
		for _, v := range vals {
			stated = append(stated, statement{attr: a, value: a.values[v]})
		}
	}
	slots := rng.Perm(n - 40)[:len(stated)]
	// Ordered in time per attribute: the first value comes first.
	byAttr := map[string][]int{}
	for i, st := range stated {
		byAttr[st.attr.name] = append(byAttr[st.attr.name], i)
	}
	for _, idx := range byAttr {
		var ts []int
		for _, i := range idx {
			ts = append(ts, slots[i])
		}
		sortInts(ts)
		for k, i := range idx {
			stated[i].turn = ts[k]
		}
	}
	c := Conversation{Turns: make([]Turn, n)}
	for i := range c.Turns {
		c.Turns[i] = Turn{Text: filler[rng.IntN(len(filler))], At: start.Add(time.Duration(i) * step)}
	}
	for _, st := range stated {
		t := &c.Turns[st.turn]
		t.Text = fmt.Sprintf(st.attr.state[rng.IntN(len(st.attr.state))], st.value)
		t.Attr, t.Fact = st.attr.name, st.attr.name+": "+fmt.Sprintf(st.attr.fact, st.value)
	}
	// Filler turns are unique texts: the benchmark finds turns by text.
	seen := map[string]int{}
	for i := range c.Turns {
		if c.Turns[i].Attr == "" {
			seen[c.Turns[i].Text]++
			if seen[c.Turns[i].Text] > 1 {
				c.Turns[i].Text += fmt.Sprintf(" (day %d)", i)
			}
		}
	}
	c.Questions = questions(rng, stated)
	if sz.Questions > 0 && len(c.Questions) > sz.Questions {
		rng.Shuffle(len(c.Questions), func(i, j int) { c.Questions[i], c.Questions[j] = c.Questions[j], c.Questions[i] })
		c.Questions = c.Questions[:sz.Questions]
	}
	return c
}

func questions(rng *rand.Rand, stated []statement) []Question {
	var qs []Question
	latest := map[string]statement{}
	for _, st := range stated {
		if cur, ok := latest[st.attr.name]; !ok || st.turn > cur.turn {
			latest[st.attr.name] = st
		}
	}
	for _, st := range stated {
		a := st.attr
		newest := latest[a.name].turn == st.turn
		if newest {
			for _, q := range a.ask {
				qs = append(qs, Question{Text: q, Keywords: a.keywords, Kind: Single, Evidence: []int{st.turn}})
			}
		} else if a.before != "" {
			// The value that replaced this one.
			next := latest[a.name]
			for _, o := range stated {
				if o.attr == a && o.turn > st.turn && o.turn < next.turn {
					next = o
				}
			}
			qs = append(qs, Question{Text: fmt.Sprintf(a.before, next.value), Keywords: a.keywords + " " + strings.ToLower(next.value),
				Kind: Changed, Evidence: []int{st.turn}})
		}
		qs = append(qs, Question{Text: a.when, Keywords: a.keywords + " when", Kind: Temporal, Evidence: []int{st.turn}})
		// About the value itself, in other words than the statement's.
		qs = append(qs, Question{Text: fmt.Sprintf("What did I tell you about %s?", st.value), Keywords: strings.ToLower(st.value),
			Kind: Single, Evidence: []int{st.turn}})
		qs = append(qs, Question{Text: fmt.Sprintf("Have I ever mentioned %s to you?", st.value), Keywords: strings.ToLower(st.value) + " mentioned",
			Kind: Single, Evidence: []int{st.turn}})
	}
	// Two facts at once.
	for i := 0; i < len(stated)/2; i++ {
		x, y := stated[rng.IntN(len(stated))], stated[rng.IntN(len(stated))]
		if x.attr == y.attr {
			continue
		}
		qs = append(qs, Question{Text: fmt.Sprintf("Remind me about %s and %s", x.value, y.value),
			Keywords: strings.ToLower(x.value + " " + y.value), Kind: Multi, Evidence: []int{x.turn, y.turn}})
	}
	return qs
}

func sortInts(s []int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
