package bot

import "strings"

// text keys of the bot's own messages.
const (
	txtStart    = "start"
	txtHelp     = "help" // the lines before and after the list of commands
	txtNew      = "new"
	txtApology  = "apology"
	txtEmpty    = "empty"
	txtUnknown  = "unknown"
	txtTextOnly = "text_only"
)

// texts holds the bot's own messages by language and key. A feature's file
// adds its own with addTexts in an init function.
var texts = map[string]map[string]string{"en": {}, "ru": {}}

// addTexts merges more texts in; every key must come in both languages.
func addTexts(more map[string]map[string]string) {
	for lang, byKey := range more {
		for key, text := range byKey {
			texts[lang][key] = text
		}
	}
}

func init() { addTexts(coreTexts) }

var coreTexts = map[string]map[string]string{
	"en": {
		txtStart: "Hello, %s! I'm a chat assistant with a memory: I remember our conversation, even after a restart.\n\n" +
			"Just write to me. /new starts a fresh conversation, /help lists what I can do.",
		txtHelp: "Commands:\n%s\n\n" +
			"Anything else you write goes to the assistant. It remembers the recent conversation and facts about you, " +
			"can look up what was said long ago, set reminders, and use tools (the time, a calculator, web pages — " +
			"those only after you approve).",
		helpKey("start"): "the greeting",
		helpKey("help"):  "this list",
		helpKey("new"):   "forget this conversation and start a fresh one (what I remember about you stays)",
		txtNew:           "Done: the old conversation is deleted. Let's start over.",
		txtApology:       "Sorry, I couldn't get an answer this time. Please try again in a moment.",
		txtEmpty:         "The model returned an empty answer. Please rephrase and try again.",
		txtUnknown:       "I don't know that command. /help lists the ones I do.",
		txtTextOnly:      "I only understand text messages for now.",
	},
	"ru": {
		txtStart: "Привет, %s! Я чат-ассистент с памятью: я помню наш разговор, даже после перезапуска.\n\n" +
			"Просто напишите мне. /new начинает новый разговор, /help — список возможностей.",
		txtHelp: "Команды:\n%s\n\n" +
			"Всё остальное, что вы пишете, получает ассистент. Он помнит недавний разговор и факты о вас, " +
			"умеет находить сказанное давно, ставить напоминания и пользоваться инструментами (время, калькулятор, " +
			"веб-страницы — только с вашего разрешения).",
		helpKey("start"): "приветствие",
		helpKey("help"):  "этот список",
		helpKey("new"):   "забыть этот разговор и начать новый (то, что я помню о вас, останется)",
		txtNew:           "Готово: старый разговор удалён. Начнём сначала.",
		txtApology:       "Извините, сейчас не получилось получить ответ. Попробуйте ещё раз чуть позже.",
		txtEmpty:         "Модель вернула пустой ответ. Переформулируйте, пожалуйста, и попробуйте ещё раз.",
		txtUnknown:       "Такой команды я не знаю. /help покажет список команд.",
		txtTextOnly:      "Пока я понимаю только текстовые сообщения.",
	},
}

// lang picks the bot's language for a Telegram language_code: Russian for
// ru (and its regional variants), English otherwise.
func lang(code string) string {
	if code == "ru" || strings.HasPrefix(code, "ru-") {
		return "ru"
	}
	return "en"
}

// T returns the bot's text key in the language of languageCode.
func T(languageCode, key string) string { return texts[lang(languageCode)][key] }
