package texts

import "fmt"

// russian is the bot's own texts in Russian.
var russian = Texts{
	AccessDenied: func(a1 any) string {
		return fmt.Sprintf("Извините, это закрытый бот: он отвечает только тем, кому разрешил владелец.\n\n"+
			"Если вам нужен доступ, отправьте владельцу ваш Telegram id: %d", a1)
	},
	AccessDeniedShort: "Извините, это закрытый бот.",
	RateLimited: func(a1 any) string {
		return fmt.Sprintf("Вы пишете быстрее, чем я успеваю отвечать: не больше %s в минуту. "+
			"Подождите немного — то, что придёт до этого, останется без ответа.", plural(a1, "сообщения", "сообщений", "сообщений"))
	},
	TokenLimit: func(a1, a2 any) string {
		return fmt.Sprintf("Вы израсходовали дневной лимит: %s. Он обновится в полночь (по времени %s). /usage покажет ваш расход.", plural(a1, "токен", "токена", "токенов"), a2)
	},
	// The claim and pairing (bot/gate)
	Unclaimed: "У этого бота ещё нет владельца. Если он ваш, откройте ссылку для получения бота, которую membot " +
		"пишет в журнал при запуске (её показывает и membot doctor).",
	ClaimDone: func(name any) string {
		return fmt.Sprintf("Здравствуйте, %s! Теперь вы владелец этого бота. Он служит вам и спрашивает вас, прежде чем "+
			"отвечать кому-то ещё: /users показывает, кому он отвечает.", name)
	},
	ClaimWrong: func(left any) string {
		return fmt.Sprintf("Код неверный. Осталось попыток в этот час: %d.", left)
	},
	ClaimWrongLast: "Код неверный, и это была последняя попытка на ближайший час.",
	ClaimExpired:   "Срок этого кода истёк. Новый код — в журнале бота (перезапустите бота или выполните membot doctor).",
	PairingAsked:   "Это закрытый бот. Я спросил владельца, можно ли мне с вами говорить, и напишу, когда он ответит.",
	PairingAskedGroup: "Это закрытый бот. Я спросил владельца, можно ли мне отвечать в этой группе, " +
		"и напишу сюда, когда он ответит.",
	PairingWaiting: "Я уже спросил владельца; он пока не ответил.",
	PairingFull:    "Это закрытый бот, и у его владельца слишком много неотвеченных запросов. Попробуйте завтра.",
	PairingRequest: func(name, id, language, chat any) string {
		return fmt.Sprintf("Кто-то просит доступ к боту:\n%s\nid: %d\nязык: %s\nчат: %s", name, id, language, chat)
	},
	PairingGroupRequest: func(title, id, by, language any) string {
		return fmt.Sprintf("Бота добавили в группу, и она просит доступ:\n%s (id чата %d)\nдобавил: %s\nязык: %s",
			title, id, by, language)
	},
	PairingPrivateChat:  "личный",
	PairingAllow:        "✅ Разрешить",
	PairingDeny:         "❌ Отказать",
	PairingBlock:        "⛔ Заблокировать",
	PairingAllowedAt:    func(at any) string { return fmt.Sprintf("✅ Разрешено в %s", at) },
	PairingDeniedAt:     func(at any) string { return fmt.Sprintf("❌ Отказано в %s", at) },
	PairingBlockedAt:    func(at any) string { return fmt.Sprintf("⛔ Заблокировано в %s", at) },
	PairingGone:         "Этот запрос уже не ждёт: по нему решили, или его срок истёк.",
	PairingOwnersOnly:   "Это решают только владелец и админы бота.",
	PairingAllowedYou:   "Владелец разрешил: пишите мне что угодно.",
	PairingAllowedGroup: "Владелец разрешил эту группу: упомяните меня или ответьте на моё сообщение, чтобы поговорить.",
	PairingDeniedYou:    "Владелец не разрешил, извините.",
	PairingDeniedGroup:  "Владелец не разрешил эту группу, поэтому я из неё выхожу.",
	UsersHeads:          [5]string{"Владельцы и админы", "Разрешены", "Заблокированы", "Группы", "Ждут вашего решения"},
	UsersNobody:         "никого",
	UsersUsage: "/users показывает, кому бот отвечает. /users allow ID, /users block ID, /users revoke ID " +
		"(id группы начинается с -; после revoke можно попросить снова).",
	UsersRevoke: func(name any) string { return fmt.Sprintf("Отозвать: %s", name) },
	UsersAllowedNow: func(id any) string {
		return fmt.Sprintf("%d теперь может пользоваться ботом.", id)
	},
	UsersBlockedNow: func(id any) string {
		return fmt.Sprintf("%d заблокирован: бот не будет ему отвечать.", id)
	},
	UsersRevoked: func(id any) string {
		return fmt.Sprintf("%d больше не может пользоваться ботом (может попросить снова).", id)
	},
	UsersNothing:    func(id any) string { return fmt.Sprintf("Для %d ничего не было решено.", id) },
	UsersOwnerStays: "Владелец остаётся владельцем.",

	Stats: func(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12 any) string {
		return fmt.Sprintf("Сегодня (по времени %s)\n"+
			"Пользователей: %d, активных сегодня: %d\n"+
			"Сообщений сегодня: %d (строк в базе всего: %d)\n"+
			"Токенов сегодня: %d за %s модели\n"+
			"Ошибок модели сегодня: %d, вызовов инструментов сегодня: %d\n"+
			"Отказов сегодня (доступ или лимиты): %d\n"+
			"Очередь: ждут %d, брошено %d", a1, a2, a3, a4, a5, a6, plural(a7, "вызов", "вызова", "вызовов"), a8, a9, a10, a11, a12)
	},
	User: func(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13 any) string {
		return fmt.Sprintf("Пользователь %d (%s)\n"+
			"Впервые: %s, последний раз: %s\n"+
			"Разговоров: %d, сообщений в базе: %d\n"+
			"Сегодня: сообщений: %d, токенов: %d\n"+
			"В этом месяце: сообщений: %d, токенов: %d\n"+
			"Всего: токенов: %d за %s модели\n"+
			"Дней с отказом: %d", a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, plural(a12, "вызов", "вызова", "вызовов"), a13)
	},
	UserUsage:   "Так: /user <Telegram id или @имя>, например /user 123456789 или /user @ivan",
	UserUnknown: func(a1 any) string { return fmt.Sprintf("Пользователя %v я не знаю.", a1) },
	WebSignIn: func(link, minutes any) string {
		return fmt.Sprintf("Ваша ссылка для входа на веб-страницы, только для вас: она сработает один раз в течение %v мин. Не пересылайте её.\n%v", minutes, link)
	},
	WebLocal: func(addr any) string {
		return fmt.Sprintf("Веб-страницы открыты по адресу http://%v на машине, где я работаю, без входа. Чтобы открыть их с другой машины, задайте WEB_URL (адрес HTTPS) и пришлите /web снова.", addr)
	},
	WebOff:         func(why any) string { return fmt.Sprintf("Веб-страницы выключены: %v.", why) },
	WebPrivate:     "Ссылка для входа — только для вас: пришлите /web в нашем личном чате.",
	WebFailed:      "Не удалось создать ссылку для входа; причина в журнале. Попробуйте через минуту.",
	MemoryAppIntro: "Откуда взялся каждый факт, исправить или забыть его, найти сказанное:",
	MemoryAppOpen:  "Открыть мою память",
	ApprovalAsk: func(a1, a2 any) string {
		return fmt.Sprintf("🔐 Ассистент хочет воспользоваться инструментом %s:\n%s\n\nРазрешить?", a1, a2)
	},
	ApprovalClosed: func(tool, call, outcome any) string {
		return fmt.Sprintf("🔐 Ассистент просил воспользоваться инструментом %s:\n%s\n\n%s", tool, call, outcome)
	},
	ApprovalFollows: func(sources any) string {
		return fmt.Sprintf("⚠️ Этот запрос следует за текстом не от вас (источник: %s) — возможно, это он просит об этом.", sources)
	},
	OutsideSources: map[string]string{
		"page": "веб-страница %s", "search": "результат веб-поиска", "mcp": "MCP-сервер %s",
		"described": "описание инструмента MCP-сервера %s", "tool": "результат инструмента %s", "forwarded": "пересланное сообщение",
		"via_bot": "сообщение через @%s", "file": "файл %s", "image": "изображение", "member": "другой участник %s",
	},
	OutcomeApproved:  func(at any) string { return fmt.Sprintf("✅ Разрешено в %s.", at) },
	OutcomeRejected:  func(at any) string { return fmt.Sprintf("❌ Отклонено в %s.", at) },
	OutcomeCancelled: "Отменено, пока никто не решил.",
	Approve:          "✅ Разрешить",
	Reject:           "❌ Отклонить",
	Approved:         "Разрешено. Выполняю…",
	Rejected:         "Отклонено. Ассистент узнает об этом.",
	ApprovalNotYours: "Решить может только тот, кто спрашивал (или администратор).",
	ApprovalUnknown:  "Такого запроса больше нет.",
	WasApproved:      "Это уже разрешено.",
	WasRejected:      "Это уже отклонено.",
	WasCancelled:     "Этот запрос отменён.",
	ApprovalGone:     "Разговор, к которому относился запрос, был начат заново, продолжать нечего.",
	ApprovalsNone:    "Ничего не ждёт разрешения.",
	ApprovalsList:    "Ждут разрешения (кнопки решают по номеру):",
	ApprovalsCanceled: func(a1 any) string {
		return fmt.Sprintf("Отменены запросы, ждавшие разрешения: %d.", a1)
	},
	MoreCharacters: func(n any) string {
		return fmt.Sprintf("… (ещё %s)", plural(n, "символ", "символа", "символов"))
	},
	ShowWhole: "📄 Показать целиком",
	WholeCall: func(tool any) string {
		return fmt.Sprintf("Вызов %s целиком: его аргументы ровно такими, какими он выполняется.", tool)
	},
	OutcomeNotRun: func(why any) string { return fmt.Sprintf("⛔ Не выполнено: %s.", why) },
	ToolNotOffered: func(tool any) string {
		return fmt.Sprintf("инструмент %s сейчас недоступен (его MCP-сервер не работает или больше его не предлагает)", tool)
	},
	ArgumentsBroken: "его аргументы не читаются в том виде, в каком сохранены",
	CannotRunNow:    "сейчас его нельзя выполнить",

	ModelList: "Модели (✓ — та, что отвечает в этом чате). Нажмите на нужную или отправьте /model ИМЯ:",
	ModelOnlyOne: func(a1 any) string {
		return fmt.Sprintf("Модель — %s; других не настроено (MODELS).", a1)
	},
	ModelUnknown: func(a1 any) string {
		return fmt.Sprintf("Модели «%s» нет. /model покажет список.", a1)
	},
	ModelAlready: func(a1 any) string { return fmt.Sprintf("Модель уже %s.", a1) },
	ModelSwitched: func(a1 any) string {
		return fmt.Sprintf("Модель: %s. Она отвечает с вашего следующего сообщения.", a1)
	},
	ModelSwitchedShort: func(a1 any) string { return fmt.Sprintf("Модель: %s", a1) },
	MemoryList: func(a1 any) string {
		return fmt.Sprintf("Что я о вас помню, сначала новое:\n%s\n\n/forget N удаляет одно, /forget all — всё.", a1)
	},
	MemoryEmpty: "Я пока ничего о вас не помню. Расскажите о себе и попросите запомнить.",
	ForgetUsage: "Что именно? /memory показывает, что я помню, с номерами: /forget 2 удаляет второе, /forget all — всё.",
	Forgotten:   func(a1 any) string { return fmt.Sprintf("Забыл: %s", a1) },
	ForgotAll:   func(a1 any) string { return fmt.Sprintf("Забыл всё, что помнил о вас (%d).", a1) },
	ForgetNone:  "Забывать было нечего.",
	ForgetNoSuch: func(a1 any) string {
		return fmt.Sprintf("Под номером %d ничего нет; /memory покажет список.", a1)
	},
	Reminder: func(a1 any) string { return fmt.Sprintf("⏰ Напоминание: %s", a1) },
	ReminderLate: func(a1 any) string {
		return fmt.Sprintf("\n\n(Его время было %s, когда я был недоступен. Простите за опоздание.)", a1)
	},
	RemindersList: func(a1 any) string {
		return fmt.Sprintf("Ваши напоминания:\n%s\n\n/cancel_reminder N отменяет одно, /cancel_reminder all — все.", a1)
	},
	RemindersNone:       "Напоминаний нет. Просто попросите, например: «напомни через 2 часа позвонить маме».",
	CancelReminderUsage: "Какое? /reminders показывает их с номерами: /cancel_reminder 2 отменяет второе, /cancel_reminder all — все.",
	RemindersCancelled:  func(a1 any) string { return fmt.Sprintf("Отменено:\n%s", a1) },
	RemindersOwnOnly:    "В группе можно отменять только свои напоминания (администраторы группы — любые); среди указанных ваших нет.",
	ReminderNoSuch: func(a1 any) string {
		return fmt.Sprintf("Напоминания с номером %s нет; /reminders покажет список.", a1)
	},
	TaskLate: func(prompt, due any) string {
		return fmt.Sprintf("⏰ Задача по расписанию «%s» должна была выполниться в %s, когда я был офлайн; выполняю сейчас.", prompt, due)
	},
	TasksList: func(lines any) string {
		return fmt.Sprintf("Задачи по расписанию в этом чате:\n\n%s\n\nКнопки приостанавливают, возобновляют или удаляют задачу.", lines)
	},
	TasksNone: "Задач по расписанию нет. Просто попросите, например: «каждый будний день в 8 рассказывай о погоде».",
	TaskLine: func(n, prompt, schedule, zone any) string {
		return fmt.Sprintf("%v. %s\n    %s (%s)", n, prompt, schedule, zone)
	},
	TaskNext:     func(at any) string { return fmt.Sprintf(", следующий раз %s", at) },
	TaskIsPaused: ", приостановлена",
	TaskPause:    func(n any) string { return fmt.Sprintf("⏸ Пауза %v", n) },
	TaskResume:   func(n any) string { return fmt.Sprintf("▶️ Возобновить %v", n) },
	TaskDelete:   func(n any) string { return fmt.Sprintf("🗑 Удалить %v", n) },
	TaskPaused:   "Приостановлена.",
	TaskResumed:  func(at any) string { return fmt.Sprintf("Возобновлена: следующий раз %s.", at) },
	TaskDeleted:  "Удалена.",
	TaskNoSuch:   "Этой задачи уже нет, или она не ваша.",
	TaskReminder: "⏰ напоминание: ",
	Start: func(a1 any) string {
		return fmt.Sprintf("Привет, %s! Я чат-ассистент с памятью: я помню наш разговор, даже после перезапуска.\n\n"+
			"Просто напишите мне. /new начинает новый разговор, /help — список возможностей.", a1)
	},
	HelpPage: func(a1 any) string {
		return fmt.Sprintf("Команды:\n%s\n\n"+
			"Всё остальное, что вы пишете, получает ассистент. Он помнит недавний разговор и факты о вас, "+
			"умеет находить сказанное давно, ставить напоминания и пользоваться инструментами (время, калькулятор, "+
			"веб-страницы — только с вашего разрешения).", a1)
	},
	New:            "Готово: старый разговор удалён. Начнём сначала.",
	Apology:        "Извините, сейчас не получилось получить ответ. Попробуйте ещё раз чуть позже.",
	Empty:          "Модель вернула пустой ответ. Переформулируйте, пожалуйста, и попробуйте ещё раз.",
	Unknown:        "Такой команды я не знаю. /help покажет список команд.",
	TextOnly:       "Такие сообщения я пока не понимаю. Я понимаю текст, голосовые сообщения, аудио и видеосообщения, фото и изображения, текстовые файлы (txt, md, csv, json, код, логи) и PDF.",
	NothingToRetry: "Отвечать заново не на что: в этом разговоре ещё нет ваших сообщений.",
	NothingToUndo:  "Отменять нечего: в этом разговоре нет ваших сообщений.",
	Undone: func(a1, a2 any) string {
		return fmt.Sprintf("Отменено: «%s» и то, что после него, всего %s (ваши и ответы бота). Ассистент их больше не видит; /undo ещё раз отменит предыдущее.", a1, plural(a2, "сообщение", "сообщения", "сообщений"))
	},
	UndoneAgain: func(a1 any) string {
		return fmt.Sprintf("Эта отмена уже выполнена: удалено сообщений — %d.", a1)
	},
	HistoryUsage: func(a1 any) string {
		return fmt.Sprintf("Используйте /history или /history N, где N от 1 до %d.", a1)
	},
	HistoryEmpty: "Этот разговор пока пуст.",
	HistoryHeader: func(a1, a2 any) string {
		return fmt.Sprintf("Последние сообщения разговора (%d), время — %s:", a1, a2)
	},
	You:         "Вы",
	Bot:         "Бот",
	ExportEmpty: "Экспортировать пока нечего: этот разговор пуст.",
	ExportCaption: func(a1 any) string {
		return fmt.Sprintf("Этот разговор: сообщений — %d (ваши и ответы бота; в JSON есть и вызовы инструментов, и заметки), в Markdown и в JSON.", a1)
	},
	ExportPart: func(part, parts any) string { return fmt.Sprintf("Часть %d из %d.", part, parts) },
	ExportCut: func(shown, total, parts, size any) string {
		return fmt.Sprintf("Экспорт обрывается на сообщении %d из %d: /export отправляет не больше %s по %s каждого вида. Администратор бота может выгрузить всё командой `membot admin export`.", shown, total, plural(parts, "файла", "файлов", "файлов"), size)
	},
	ExportLimit: func(perHour, again any) string {
		return fmt.Sprintf("/export отправляет не больше %s в час, и вы их уже получили. Следующий будет возможен в %s.", plural(perHour, "экспорта", "экспортов", "экспортов"), again)
	},
	ExportRefused: func(reason any) string {
		return fmt.Sprintf("Экспорт не удался: Telegram не принял его файл (%s). Ничего не потеряно; администратор бота может выгрузить всё командой `membot admin export`.", reason)
	},
	ModeList: "Режимы (✓ — текущий). Нажмите на нужный или отправьте /mode ИМЯ:",
	ModeUnknown: func(a1 any) string {
		return fmt.Sprintf("Режима «%s» нет. /mode покажет список.", a1)
	},
	ModeAlready: func(a1 any) string { return fmt.Sprintf("Ассистент уже в режиме %s.", a1) },
	ModeSwitched: func(a1 any) string {
		return fmt.Sprintf("Режим: %s. Он действует с вашего следующего сообщения.", a1)
	},
	ModeSwitchedShort: func(a1 any) string { return fmt.Sprintf("Режим: %s", a1) },
	Usage: func(a1, a2, a3, a4, a5, a6 any) string {
		return fmt.Sprintf("Ваш расход (по времени %s; ваши сообщения, без команд)\nСегодня: сообщений: %d, токенов: %d%s\nВ этом месяце: сообщений: %d, токенов: %d", a1, a2, a3, a4, a5, a6)
	},
	UsageLimit: func(a1 any) string { return fmt.Sprintf(" из %d в день", a1) },
	GroupAdminsOnly: func(a1 any) string {
		return fmt.Sprintf("В группе команда %s — для её администраторов: она меняет или показывает то, что здесь общее для всех.", a1)
	},
	GroupAdminsOnlyButton: "Это могут менять только администраторы группы.",
	NotYourButton:         "Эта кнопка не ваша.",
	FactsPrivate:          "То, что я помню о вас, — только ваше: я храню, показываю и меняю это лишь в нашем личном чате, никогда в группе.",
	ApprovalUnreadable: func(a1, a2 any) string {
		return fmt.Sprintf("🔐 Ассистент просил воспользоваться инструментом %s, но этот вызов нельзя показать целиком (%s), поэтому разрешить его нельзя.", a1, a2)
	},
	AdminsOnly: func(a1 any) string {
		return fmt.Sprintf("Команда %s — только для администраторов бота. /help покажет команды, доступные вам.", a1)
	},
	Undeliverable: func(a1 any) string {
		return fmt.Sprintf("Telegram не принял (часть) моего ответа (%s), поэтому он дошёл до вас не целиком. Спросите, пожалуйста, ещё раз — может быть, попросив ответить короче.", a1)
	},
	Thinking: "💭 Как модель рассуждала",
	// Drafts and Stop
	StopButton:   "⏹ Стоп",
	StoppedEmpty: "⏹ Остановлено до того, как появился текст.",
	ToolRound:    func(tool any) string { return fmt.Sprintf("⚙️ Использую %s…", tool) },
	ToolStatus: map[string]string{
		"search_history": "🔎 Ищу в истории…",
		"fetch_url":      "🌐 Читаю страницу…",
		"calculator":     "🧮 Считаю…",
		"remember":       "📝 Запоминаю…",
		"forget":         "🗑 Забываю…",
		"set_reminder":   "⏰ Ставлю напоминание…",
		"current_time":   "🕒 Смотрю время…",
	},
	// Threads
	NewThreadButton: "🧵 Новая ветка",
	NewThreadName:   "Новая ветка",
	NewThreadHello:  "Новая ветка: пишите сюда, этот разговор начнётся с чистого листа (то, что я помню о вас, останется).",
	NewThreadFailed: "Не получилось открыть новую ветку. Её можно начать из меню чата.",
	ToolsBuiltin: func(list any) string {
		return fmt.Sprintf("🧰 Встроенные инструменты: %s", list)
	},
	ToolsServer: func(name, transport, state any) string {
		return fmt.Sprintf("MCP-сервер %s (%s), %s:", name, transport, state)
	},
	ToolStates: map[string]string{"starting": "запускается", "ready": "работает", "down": "недоступен (попробую снова при следующем вызове)"},
	ToolStateDown: func(why any) string {
		return fmt.Sprintf("недоступен (%s; попробую снова при следующем вызове)", why)
	},
	ToolTrusted: "доверенный",
	ToolsLeftOut: func(list any) string {
		return fmt.Sprintf("⚠️ Не предложены модели, сверх MCP_TOOLS_BUDGET (описания всех инструментов вместе): %s", list)
	},
	ToolOfferedAs:  func(name any) string { return fmt.Sprintf("(под именем %s)", name) },
	ToolAsksFirst:  "спрашивает разрешения",
	ToolRunsFreely: "без вопросов",
	ToolsNoServers: "MCP-серверы не подключены (MCP_SERVERS).",
	ToolOrigin: func(server, tool any) string {
		return fmt.Sprintf("MCP-сервер %s, инструмент %s", server, tool)
	},
	Help: map[string]string{
		"tools":           "инструменты, которыми я пользуюсь, и какие из них спрашивают разрешения",
		"stop":            "остановить ответ, который пишется",
		"stats":           "для админов: пользователи, активность и токены за сегодня",
		"web":             "для админов: ссылка для входа на веб-страницы",
		"user":            "для админов: сводка по пользователю: /user ID или /user @имя",
		"users":           "для админов: кому бот отвечает; разрешить, заблокировать, отозвать",
		"approvals":       "действия, ждущие вашего разрешения",
		"model":           "модель, которая отвечает в этом чате; /model ИМЯ переключает",
		"memory":          "что я о вас помню",
		"forget":          "удалить то, что я помню: /forget N или /forget all",
		"reminders":       "ваши напоминания",
		"tasks":           "задачи по расписанию: приостановить, возобновить, удалить",
		"cancel_reminder": "отменить напоминание: /cancel_reminder N",
		"start":           "приветствие",
		"help":            "этот список",
		"new":             "забыть этот разговор и начать новый (то, что я помню о вас, останется)",
		"retry":           "ответить на ваше последнее сообщение заново",
		"undo":            "отменить ваше последнее сообщение и ответ на него",
		"history":         "последние сообщения разговора: /history 20",
		"mode":            "режимы ассистента; /mode ИМЯ переключает",
		"export":          "этот разговор файлами Markdown и JSON",
		"usage":           "ваши сообщения и токены за сегодня и за месяц",
		"voice":           "отвечать и голосовыми сообщениями (повторно: выключить)",
		"image":           "нарисовать картинку: /image маяк на рассвете",
	},
	Mode: map[string]string{
		"default":    "обычный ассистент",
		"concise":    "короткие ответы, без воды",
		"translator": "переводит то, что вы пишете (русский ↔ английский)",
		"coder":      "помощник программиста",
	},

	// What /undo and /retry took back with the turn
	TakenBackReminders: func(a1, a2 any) string {
		return fmt.Sprintf("Вместе с ним отменено: %s, поставленные тогда:\n%s", plural(a1, "напоминание", "напоминания", "напоминаний"), a2)
	},
	TakenBackFacts: func(a1, a2 any) string {
		return fmt.Sprintf("Вместе с ним удалено из /memory: %s, сохранённые тогда:\n%s", plural(a1, "факт", "факта", "фактов"), a2)
	},

	// Voice messages, photos and files
	VoiceOff:            "Здесь я не могу слушать голосовые сообщения: не задана модель распознавания речи (TRANSCRIPTION_MODEL). Пожалуйста, напишите текстом.",
	TranscriptionFailed: "Не удалось распознать эту запись. Попробуйте ещё раз или напишите текстом.",
	HeardNothing:        "Я не разобрал в этой записи ни слова.",
	Heard:               func(a1 any) string { return fmt.Sprintf("🎙 Я услышал: «%s»", a1) },
	FileTooBig: func(a1 any) string {
		return fmt.Sprintf("Этот файл слишком большой: я принимаю файлы до %s.", a1)
	},
	FileUnreadable: func(a1 any) string {
		return fmt.Sprintf("Не удалось прочитать %s: похоже, файл повреждён или не то, чем назван.", a1)
	},
	UnsupportedFile: func(a1 any) string {
		return fmt.Sprintf("Я не умею читать %s. Я понимаю текст, голосовые сообщения, аудио и видеосообщения, фото и изображения, "+
			"текстовые файлы (txt, md, csv, json, код, логи) и PDF.", a1)
	},
	NoTextInFile: func(a1 any) string {
		return fmt.Sprintf("В %s не нашлось текста (в отсканированном PDF только картинки страниц).", a1)
	},
	FileTooHeavy: func(a1 any) string {
		return fmt.Sprintf("Я перестал читать %s: ему нужно намного больше памяти или времени, чем документу такого размера, "+
			"значит, он повреждён или сделан, чтобы перегрузить программы чтения. Если это настоящий документ, "+
			"сохраните его заново как новый PDF или пришлите нужный текст сообщением.", a1)
	},
	FileBusy: func(a1 any) string {
		return fmt.Sprintf("Я ещё читаю ваш предыдущий файл. Пришлите %s ещё раз, когда я отвечу на тот.", a1)
	},
	VisionOff:        "Здесь я не вижу изображений. Пришлите фото с подписью, что нужно, или опишите его словами.",
	VoiceRepliesOn:   "🔊 В этом чате я буду отвечать и голосом. Повторный /voice выключит.",
	VoiceRepliesOff:  "🔇 Больше не отвечаю голосом в этом чате.",
	VoiceUnavailable: "Голосовые ответы на этом боте не настроены (TTS_MODEL не задан).",

	// /image
	ImageOff:   "Картинки на этом боте выключены (IMAGE_MODEL не задан).",
	ImageUsage: "Напишите, что нарисовать: /image маяк на рассвете, акварелью",
	ImageTooLong: func(a1 any) string {
		return fmt.Sprintf("Слишком длинное описание: я принимаю до %d символов.", a1)
	},
	VoiceOverBudget: func(a1, a2, a3 any) string {
		return fmt.Sprintf("Эта запись длится %s и стоила бы %d токенов, а на сегодня у вас осталось %d. "+
			"Пришлите запись покороче или напишите текстом.", a1, a2, a3)
	},
	ImageOverBudget: func(a1, a2 any) string {
		return fmt.Sprintf("Картинка стоит %d токенов, а у вас на сегодня осталось меньше (лимит — %d в день). "+
			"Попробуйте завтра.", a1, a2)
	},
	ImageFailed: "Не получилось нарисовать эту картинку. Попробуйте позже или опишите её иначе.",
	ImageDrawnBefore: "Я нарисовал эту картинку прямо перед перезапуском, и она могла до вас не дойти. Если её нет выше, " +
		"отправьте /image ещё раз: второй раз я её не рисовал, и она засчитана один раз.",

	// First-run help and the apology for settings the model server refuses
	YourID: func(a1 any) string {
		return fmt.Sprintf("Ваш Telegram id: %d (владелец бота добавляет его в ALLOWED_USER_IDS или ADMIN_USER_IDS).", a1)
	},
	GroupID: func(a1 any) string {
		return fmt.Sprintf("Id этой группы: %d (владелец бота добавляет его в ALLOWED_CHAT_IDS, чтобы ботом могли пользоваться все её участники).", a1)
	},
	ApologyConfig: "Извините, не могу ответить: сервер модели не принимает настройки бота (ключ, модель или адрес). " +
		"Повторять бесполезно — пожалуйста, сообщите администратору бота.",
}
