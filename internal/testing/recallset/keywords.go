package recallset

import "strings"

// stopWords are the English words a question's key words leave out: the
// function words and question words that say what is asked, not about what.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but nor of to in on at for with by from about into over after before
		since until during between than as if so not no yes
		is are was were be been being am do does did done have has had having will would shall should can could may might must
		i me my mine myself you your yours he him his she her hers it its we us our they them their theirs
		this that these those there here what which who whom whose when where why how
		any some all each every both either neither much many more most other another such own same
		ever also just too very still again then now once only even up down out off s t
		tell told say said remind mention mentioned`) {
		stopWords[w] = true
	}
}

// KeyWords is question without its stop words, in its own order and
// lowercased: the query a model that knows to search for key words only
// would send. A question of stop words alone keeps them all.
func KeyWords(question string) string {
	var kept []string
	all := words(question)
	for _, w := range all {
		if !stopWords[w] {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		return strings.Join(all, " ")
	}
	return strings.Join(kept, " ")
}
