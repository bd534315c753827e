package bot

// Texts of the conversation controls: /retry, /undo, /history, /export, /mode.
const (
	txtNothingToRetry    = "nothing_to_retry"
	txtNothingToUndo     = "nothing_to_undo"
	txtUndone            = "undone"
	txtUndoneAgain       = "undone_again"
	txtHistoryUsage      = "history_usage"
	txtHistoryEmpty      = "history_empty"
	txtHistoryHeader     = "history_header"
	txtYou               = "you"
	txtBot               = "bot"
	txtExportEmpty       = "export_empty"
	txtExportCaption     = "export_caption"
	txtModeList          = "mode_list"
	txtModeUnknown       = "mode_unknown"
	txtModeAlready       = "mode_already"
	txtModeSwitched      = "mode_switched"
	txtModeSwitchedShort = "mode_switched_short"
)

// modeKey is the text key of a built-in mode's description.
func modeKey(mode string) string { return "mode_" + mode }

func init() { addTexts(controlTexts) }

var controlTexts = map[string]map[string]string{
	"en": {
		helpKey("retry"):   "answer your last message again",
		helpKey("undo"):    "take back your last message and the answer to it",
		helpKey("history"): "the last messages of this conversation: /history 20",
		helpKey("mode"):    "the assistant's modes; /mode NAME switches",
		helpKey("export"):  "this conversation as Markdown and JSON files",

		txtNothingToRetry:    "There is nothing to answer again: this conversation has no message of yours yet.",
		txtNothingToUndo:     "There is nothing to take back: this conversation has no message of yours.",
		txtUndone:            "Taken back: “%s” and the messages after it (%d). The assistant no longer sees them; /undo again goes further back.",
		txtUndoneAgain:       "That /undo was done already: %d messages were taken back.",
		txtHistoryUsage:      "Usage: /history or /history N, with N from 1 to %d.",
		txtHistoryEmpty:      "This conversation is empty so far.",
		txtHistoryHeader:     "The last messages of this conversation (%d), times in %s:",
		txtYou:               "You",
		txtBot:               "Bot",
		txtExportEmpty:       "There is nothing to export yet: this conversation is empty.",
		txtExportCaption:     "This conversation: %d messages, as Markdown and as JSON.",
		txtModeList:          "Modes (✓ is the current one). Tap one, or send /mode NAME:",
		txtModeUnknown:       "There is no mode “%s”. /mode lists them.",
		txtModeAlready:       "The assistant is in mode %s already.",
		txtModeSwitched:      "Mode: %s. It applies from your next message.",
		txtModeSwitchedShort: "Mode: %s",

		modeKey("default"):    "the general assistant",
		modeKey("concise"):    "short answers, no filler",
		modeKey("translator"): "translates what you write (Russian ↔ English)",
		modeKey("coder"):      "a programming assistant",
	},
	"ru": {
		helpKey("retry"):   "ответить на ваше последнее сообщение заново",
		helpKey("undo"):    "отменить ваше последнее сообщение и ответ на него",
		helpKey("history"): "последние сообщения разговора: /history 20",
		helpKey("mode"):    "режимы ассистента; /mode ИМЯ переключает",
		helpKey("export"):  "этот разговор файлами Markdown и JSON",

		txtNothingToRetry:    "Отвечать заново не на что: в этом разговоре ещё нет ваших сообщений.",
		txtNothingToUndo:     "Отменять нечего: в этом разговоре нет ваших сообщений.",
		txtUndone:            "Отменено: «%s» и сообщения после него (%d). Ассистент их больше не видит; /undo ещё раз отменит предыдущее.",
		txtUndoneAgain:       "Эта отмена уже выполнена: удалено сообщений — %d.",
		txtHistoryUsage:      "Используйте /history или /history N, где N от 1 до %d.",
		txtHistoryEmpty:      "Этот разговор пока пуст.",
		txtHistoryHeader:     "Последние сообщения разговора (%d), время — %s:",
		txtYou:               "Вы",
		txtBot:               "Бот",
		txtExportEmpty:       "Экспортировать пока нечего: этот разговор пуст.",
		txtExportCaption:     "Этот разговор: сообщений — %d, в Markdown и в JSON.",
		txtModeList:          "Режимы (✓ — текущий). Нажмите на нужный или отправьте /mode ИМЯ:",
		txtModeUnknown:       "Режима «%s» нет. /mode покажет список.",
		txtModeAlready:       "Ассистент уже в режиме %s.",
		txtModeSwitched:      "Режим: %s. Он действует с вашего следующего сообщения.",
		txtModeSwitchedShort: "Режим: %s",

		modeKey("default"):    "обычный ассистент",
		modeKey("concise"):    "короткие ответы, без воды",
		modeKey("translator"): "переводит то, что вы пишете (русский ↔ английский)",
		modeKey("coder"):      "помощник программиста",
	},
}
