package memorize

import (
	"strings"
	"unicode"
)

// What the memory model writes goes into every later system prompt, so it
// is read as data about the user and checked in code: a model that was
// talked into it (a file, a forwarded message, a page, a group member) may
// hand back an instruction dressed as a fact. The rule is plain words, not
// a model's judgement:
//
//   - a fact (isInstruction) is refused when it holds a link, when it
//     speaks to the assistant with an obligation ("the assistant must",
//     "the bot should always"), when it asks to ignore or change the
//     instructions, or when its first word is an imperative ("Always …",
//     "Send …", "Отвечай …"): facts are statements about the user in the
//     third person ("Lives in Kazan"), never orders;
//   - a summary line (addressesAssistant) is dropped when it speaks to the
//     assistant with an obligation or about its instructions: a summary
//     reports what people said, and may mention links.

// linkMarkers are what makes a text hold a link.
var linkMarkers = []string{"://", "www.", "http:", "https:"}

// assistantWords name the assistant.
var assistantWords = []string{"assistant", "bot", "chatbot", "ai", "model", "gpt", "ассистент", "бот", "помощник", "модель"}

// obligationWords make a sentence about the assistant an order.
var obligationWords = []string{"must", "should", "always", "never", "shall", "needs", "need",
	"должен", "должна", "должно", "обязан", "обязана", "всегда", "никогда", "нужно", "надо", "следует"}

// promptPhrases are about the assistant's instructions themselves.
var promptPhrases = []string{"ignore previous", "ignore all", "ignore the above", "ignore your", "system prompt", "instruction",
	"disregard", "new rule", "игнорируй", "инструкц", "системн", "забудь все", "новое правило"}

// imperatives are first words that make a sentence an order; third-person
// forms ("Lives", "Works", "Uses") are not among them.
var imperatives = map[string]bool{
	"always": true, "never": true, "tell": true, "send": true, "recommend": true, "say": true, "reply": true, "respond": true,
	"answer": true, "end": true, "start": true, "begin": true, "include": true, "use": true, "ignore": true, "forget": true,
	"remember": true, "add": true, "ask": true, "call": true, "visit": true, "click": true, "go": true, "follow": true,
	"do": true, "don't": true, "dont": true, "must": true, "write": true, "share": true, "give": true, "provide": true,
	"mention": true, "append": true, "insert": true, "put": true, "make": true, "link": true, "direct": true,
	"redirect": true, "forward": true, "transfer": true, "pay": true, "enter": true, "open": true, "log": true,
	"note": true, "please": true, "suggest": true, "promote": true, "advertise": true, "sign": true,
	"всегда": true, "никогда": true, "скажи": true, "говори": true, "отвечай": true, "ответь": true, "отправь": true,
	"отправляй": true, "пришли": true, "присылай": true, "рекомендуй": true, "советуй": true, "посоветуй": true,
	"пиши": true, "напиши": true, "добавь": true, "добавляй": true, "игнорируй": true, "забудь": true, "запомни": true,
	"используй": true, "перейди": true, "переходи": true, "нажми": true, "заканчивай": true, "начинай": true,
	"предлагай": true, "предложи": true, "упоминай": true, "переведи": true, "переводи": true, "плати": true,
	"оплати": true, "введи": true, "открой": true, "пожалуйста": true,
}

// words are the lowercase words of s (letters, digits and apostrophes).
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// isInstruction tells whether a fact text reads as an instruction to the
// assistant rather than a statement about the user (see the rule above).
func isInstruction(fact string) bool {
	lower := strings.ToLower(fact)
	for _, m := range linkMarkers {
		if strings.Contains(lower, m) {
			return true
		}
	}
	if addressesAssistant(fact) {
		return true
	}
	w := words(fact)
	return len(w) > 0 && imperatives[w[0]]
}

// addressesAssistant tells whether a text speaks to the assistant with an
// obligation, or about its instructions.
func addressesAssistant(text string) bool {
	lower := strings.ToLower(text)
	for _, p := range promptPhrases {
		if strings.Contains(lower, p) {
			return true
		}
	}
	w := words(text)
	for i, x := range w {
		if !isAssistantWord(x) {
			continue
		}
		// "the assistant must …", "assistant: always …", "бот должен …"
		for _, next := range w[i+1 : min(i+3, len(w))] {
			for _, o := range obligationWords {
				if next == o {
					return true
				}
			}
		}
	}
	return false
}

func isAssistantWord(w string) bool {
	for _, a := range assistantWords {
		if w == a || (len([]rune(a)) > 3 && strings.HasPrefix(w, a)) { // "ассистенту", "бота", "assistant's"
			return true
		}
	}
	return false
}
