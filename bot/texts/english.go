package texts

import "fmt"

// english is the bot's own texts in English.
var english = Texts{
	AccessDenied: func(a1 any) string {
		return fmt.Sprintf("Sorry, this is a private bot: it only answers the people its owner has allowed.\n\n"+
			"If you should have access, send the owner your Telegram id: %d", a1)
	},
	AccessDeniedShort: "Sorry, this is a private bot.",
	RateLimited: func(a1 any) string {
		return fmt.Sprintf("You are writing faster than I can answer: at most %s a minute. "+
			"Please wait a moment; what you send meanwhile goes unanswered.", plural(a1, "message", "messages"))
	},
	TokenLimit: func(a1, a2 any) string {
		return fmt.Sprintf("You have used today's limit of %s. It renews at midnight (%s time). /usage shows your usage.", plural(a1, "token", "tokens"), a2)
	},
	// The claim and pairing (bot/gate)
	Unclaimed: "This bot has no owner yet. If it is yours, open the claim link membot writes to its log at start " +
		"(membot doctor shows it too).",
	ClaimDone: func(name any) string {
		return fmt.Sprintf("Hello, %s! You are this bot's owner now. It serves you, and asks you before it serves anyone else: "+
			"/users shows who may use it.", name)
	},
	ClaimWrong: func(left any) string {
		return fmt.Sprintf("That claim code is not right. Tries left this hour: %d.", left)
	},
	ClaimWrongLast: "That claim code is not right, and that was the last try for an hour.",
	ClaimExpired:   "That claim code has expired. The bot's log shows a new one (restart the bot, or run membot doctor).",
	PairingAsked:   "This is a private bot. I've asked my owner whether I may talk with you; I'll write when they answer.",
	PairingAskedGroup: "This is a private bot. I've asked my owner whether I may serve this group; " +
		"I'll write here when they answer.",
	PairingWaiting: "I've asked my owner already; they have not answered yet.",
	PairingFull:    "This is a private bot, and its owner has too many requests waiting. Please try again tomorrow.",
	PairingRequest: func(name, id, language, chat any) string {
		return fmt.Sprintf("Someone asks to use the bot:\n%s\nid: %d\nlanguage: %s\nchat: %s", name, id, language, chat)
	},
	PairingGroupRequest: func(title, id, by, language any) string {
		return fmt.Sprintf("The bot was added to a group, which asks to be served:\n%s (chat id %d)\nadded by: %s\nlanguage: %s",
			title, id, by, language)
	},
	PairingPrivateChat:  "private",
	PairingAllow:        "✅ Allow",
	PairingDeny:         "❌ Deny",
	PairingBlock:        "⛔ Block",
	PairingAllowedAt:    func(at any) string { return fmt.Sprintf("✅ Allowed at %s", at) },
	PairingDeniedAt:     func(at any) string { return fmt.Sprintf("❌ Denied at %s", at) },
	PairingBlockedAt:    func(at any) string { return fmt.Sprintf("⛔ Blocked at %s", at) },
	PairingGone:         "This request no longer waits: it was decided, or it expired.",
	PairingOwnersOnly:   "Only the bot's owner and admins decide this.",
	PairingAllowedYou:   "My owner allowed you: write me anything.",
	PairingAllowedGroup: "My owner allowed this group: mention me or reply to me to talk.",
	PairingDeniedYou:    "My owner did not allow it, sorry.",
	PairingDeniedGroup:  "My owner did not allow this group, so I am leaving it.",
	UsersHeads:          [5]string{"Owners and admins", "Allowed", "Blocked", "Groups", "Waiting for you"},
	UsersNobody:         "nobody",
	UsersUsage: "/users shows who may use the bot. /users allow ID, /users block ID, /users revoke ID " +
		"(a group's id starts with -; revoked, they may ask again).",
	UsersRevoke:     func(name any) string { return fmt.Sprintf("Revoke %s", name) },
	UsersAllowedNow: func(id any) string { return fmt.Sprintf("%d may use the bot now.", id) },
	UsersBlockedNow: func(id any) string { return fmt.Sprintf("%d is blocked: the bot will not answer them.", id) },
	UsersRevoked:    func(id any) string { return fmt.Sprintf("%d may no longer use the bot (they may ask again).", id) },
	UsersNothing:    func(id any) string { return fmt.Sprintf("Nothing was decided for %d.", id) },
	UsersOwnerStays: "The owner stays the owner.",

	Stats: func(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12 any) string {
		return fmt.Sprintf("Today (%s time)\n"+
			"Users: %d, active today: %d\n"+
			"Messages today: %d (rows stored in all: %d)\n"+
			"Tokens today: %d in %s\n"+
			"Model errors today: %d, tool calls today: %d\n"+
			"Refused today (access or limits): %d\n"+
			"Inbox: %d waiting, %d given up", a1, a2, a3, a4, a5, a6, plural(a7, "model call", "model calls"), a8, a9, a10, a11, a12)
	},
	User: func(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13 any) string {
		return fmt.Sprintf("User %d (%s)\n"+
			"First seen: %s, last seen: %s\n"+
			"Conversations: %d, stored messages: %d\n"+
			"Today: messages: %d, tokens: %d\n"+
			"This month: messages: %d, tokens: %d\n"+
			"In all: tokens: %d in %s\n"+
			"Days refused: %d", a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, plural(a12, "model call", "model calls"), a13)
	},
	UserUsage:   "Usage: /user <Telegram id or @username>, for example /user 123456789 or /user @ivan",
	UserUnknown: func(a1 any) string { return fmt.Sprintf("I know no user %v.", a1) },
	WebSignIn: func(link, minutes any) string {
		return fmt.Sprintf("Your sign-in link to the web pages, for you alone: it works once, within %v minutes. Don't forward it.\n%v", minutes, link)
	},
	WebLocal: func(addr any) string {
		return fmt.Sprintf("The web pages are at http://%v on the machine I run on, without a sign-in. To reach them from elsewhere, set WEB_URL (an HTTPS address) and send /web again.", addr)
	},
	WebOff:         func(why any) string { return fmt.Sprintf("The web pages are off: %v.", why) },
	WebPrivate:     "A sign-in link is for you alone: send /web in our private chat.",
	WebFailed:      "I could not make a sign-in link just now; the log says why. Try again in a minute.",
	MemoryAppIntro: "See where each fact came from, correct or forget it, and search what we said:",
	MemoryAppOpen:  "Open my memory",
	ApprovalAsk: func(a1, a2 any) string {
		return fmt.Sprintf("🔐 The assistant wants to use %s:\n%s\n\nAllow it?", a1, a2)
	},
	ApprovalClosed: func(tool, call, outcome any) string {
		return fmt.Sprintf("🔐 The assistant asked to use %s:\n%s\n\n%s", tool, call, outcome)
	},
	ApprovalFollows: func(sources any) string {
		return fmt.Sprintf("⚠️ This request follows text from %s, not from you: it may be what asks for this.", sources)
	},
	OutsideSources: map[string]string{
		"page": "a web page %s", "search": "a search result", "mcp": "MCP server %s",
		"described": "a tool description of MCP server %s", "tool": "the result of %s", "forwarded": "a forwarded message",
		"via_bot": "a message via @%s", "file": "a file %s", "image": "an image", "member": "another member %s",
	},
	OutcomeApproved:   func(at any) string { return fmt.Sprintf("✅ Approved at %s.", at) },
	OutcomeRejected:   func(at any) string { return fmt.Sprintf("❌ Rejected at %s.", at) },
	OutcomeCancelled:  "Cancelled before anyone decided.",
	Approve:           "✅ Approve",
	Reject:            "❌ Reject",
	Approved:          "Approved. Working on it…",
	Rejected:          "Rejected. The assistant will be told.",
	ApprovalNotYours:  "Only the person who asked (or an admin) can decide this.",
	ApprovalUnknown:   "This request no longer exists.",
	WasApproved:       "This was already approved.",
	WasRejected:       "This was already rejected.",
	WasCancelled:      "This request was cancelled.",
	ApprovalGone:      "The conversation this request belonged to was reset, so there is nothing to continue.",
	ApprovalsNone:     "Nothing is waiting for approval.",
	ApprovalsList:     "Waiting for approval (the buttons decide by number):",
	ApprovalsCanceled: func(a1 any) string { return fmt.Sprintf("Requests that waited for approval were cancelled: %d.", a1) },
	MoreCharacters: func(n any) string {
		return fmt.Sprintf("… (%v more %s)", n, pluralForm(n, "character", "characters"))
	},
	ShowWhole: "📄 Show whole",
	WholeCall: func(tool any) string {
		return fmt.Sprintf("The whole call of %s: its arguments exactly as they run.", tool)
	},
	OutcomeNotRun: func(why any) string { return fmt.Sprintf("⛔ Not run: %s.", why) },
	ToolNotOffered: func(tool any) string {
		return fmt.Sprintf("the tool %s is not available now (its MCP server is down or no longer offers it)", tool)
	},
	ArgumentsBroken: "its arguments cannot be read as they were stored",
	CannotRunNow:    "it cannot run now",

	ModelList:          "Models (✓ answers in this chat). Tap one, or send /model NAME:",
	ModelOnlyOne:       func(a1 any) string { return fmt.Sprintf("The model is %s; no other is configured (MODELS).", a1) },
	ModelUnknown:       func(a1 any) string { return fmt.Sprintf("There is no model “%s”. /model lists them.", a1) },
	ModelAlready:       func(a1 any) string { return fmt.Sprintf("The model is %s already.", a1) },
	ModelSwitched:      func(a1 any) string { return fmt.Sprintf("Model: %s. It answers from your next message.", a1) },
	ModelSwitchedShort: func(a1 any) string { return fmt.Sprintf("Model: %s", a1) },
	MemoryList: func(a1 any) string {
		return fmt.Sprintf("What I remember about you, newest first:\n%s\n\n/forget N deletes one, /forget all deletes them all.", a1)
	},
	MemoryEmpty: "I don't remember anything about you yet. Tell me about yourself and ask me to remember it.",
	ForgetUsage: "Which one? /memory lists what I remember with numbers: /forget 2 deletes the second, /forget all deletes everything.",
	Forgotten:   func(a1 any) string { return fmt.Sprintf("Forgotten: %s", a1) },
	ForgotAll: func(a1 any) string {
		return fmt.Sprintf("Forgotten: everything I remembered about you (%s).", plural(a1, "fact", "facts"))
	},
	ForgetNone:   "There was nothing to forget.",
	ForgetNoSuch: func(a1 any) string { return fmt.Sprintf("There is no fact number %d; /memory lists them.", a1) },
	Reminder:     func(a1 any) string { return fmt.Sprintf("⏰ Reminder: %s", a1) },
	ReminderLate: func(a1 any) string {
		return fmt.Sprintf("\n\n(It was due at %s, while I was offline. Sorry for the delay.)", a1)
	},
	RemindersList: func(a1 any) string {
		return fmt.Sprintf("Your reminders:\n%s\n\n/cancel_reminder N cancels one, /cancel_reminder all cancels them all.", a1)
	},
	RemindersNone:       "No reminders are set. Just ask, for example: “remind me in 2 hours to call mom”.",
	CancelReminderUsage: "Which one? /reminders lists them with numbers: /cancel_reminder 2 cancels the second, /cancel_reminder all cancels them all.",
	RemindersCancelled:  func(a1 any) string { return fmt.Sprintf("Cancelled:\n%s", a1) },
	RemindersOwnOnly:    "In a group you can cancel only the reminders you set (the group's admins can cancel any); none of those matched.",
	ReminderNoSuch:      func(a1 any) string { return fmt.Sprintf("There is no reminder number %s; /reminders lists them.", a1) },
	TaskLate: func(prompt, due any) string {
		return fmt.Sprintf("⏰ The scheduled task “%s” was due at %s, while I was offline; running it now.", prompt, due)
	},
	TasksList: func(lines any) string {
		return fmt.Sprintf("Scheduled tasks of this chat:\n\n%s\n\nThe buttons pause, resume or delete one.", lines)
	},
	TasksNone: "No scheduled tasks. Just ask, for example: “every weekday at 8 tell me the weather”.",
	TaskLine: func(n, prompt, schedule, zone any) string {
		return fmt.Sprintf("%v. %s\n    %s (%s)", n, prompt, schedule, zone)
	},
	TaskNext:     func(at any) string { return fmt.Sprintf(", next %s", at) },
	TaskIsPaused: ", paused",
	TaskPause:    func(n any) string { return fmt.Sprintf("⏸ Pause %v", n) },
	TaskResume:   func(n any) string { return fmt.Sprintf("▶️ Resume %v", n) },
	TaskDelete:   func(n any) string { return fmt.Sprintf("🗑 Delete %v", n) },
	TaskPaused:   "Paused.",
	TaskResumed:  func(at any) string { return fmt.Sprintf("Resumed: next run %s.", at) },
	TaskDeleted:  "Deleted.",
	TaskNoSuch:   "That task is gone, or not yours to change.",
	TaskReminder: "⏰ reminder: ",
	Start: func(a1 any) string {
		return fmt.Sprintf("Hello, %s! I'm a chat assistant with a memory: I remember our conversation, even after a restart.\n\n"+
			"Just write to me. /new starts a fresh conversation, /help lists what I can do.", a1)
	},
	HelpPage: func(a1 any) string {
		return fmt.Sprintf("Commands:\n%s\n\n"+
			"Anything else you write goes to the assistant. It remembers the recent conversation and facts about you, "+
			"can look up what was said long ago, set reminders, and use tools (the time, a calculator, web pages — "+
			"those only after you approve).", a1)
	},
	New:            "Done: the old conversation is deleted. Let's start over.",
	Apology:        "Sorry, I couldn't get an answer this time. Please try again in a moment.",
	Empty:          "The model returned an empty answer. Please rephrase and try again.",
	Unknown:        "I don't know that command. /help lists the ones I do.",
	TextOnly:       "I cannot take this kind of message yet. I understand text, voice messages, audio and video notes, photos and images, text files (txt, md, csv, json, code, logs) and PDFs.",
	NothingToRetry: "There is nothing to answer again: this conversation has no message of yours yet.",
	NothingToUndo:  "There is nothing to take back: this conversation has no message of yours.",
	Undone: func(a1, a2 any) string {
		return fmt.Sprintf("Taken back: “%s” and what followed it, %s (yours and the bot's answers). The assistant no longer sees them; /undo again goes further back.", a1, plural(a2, "message", "messages"))
	},
	UndoneAgain: func(a1 any) string {
		return fmt.Sprintf("That /undo was done already: it took back %s.", plural(a1, "message", "messages"))
	},
	HistoryUsage: func(a1 any) string { return fmt.Sprintf("Usage: /history or /history N, with N from 1 to %d.", a1) },
	HistoryEmpty: "This conversation is empty so far.",
	HistoryHeader: func(a1, a2 any) string {
		return fmt.Sprintf("The last messages of this conversation (%d), times in %s:", a1, a2)
	},
	You:         "You",
	Bot:         "Bot",
	ExportEmpty: "There is nothing to export yet: this conversation is empty.",
	ExportCaption: func(a1 any) string {
		return fmt.Sprintf("This conversation: %s (yours and the bot's answers; the JSON also holds its tool calls and notes), as Markdown and as JSON.", plural(a1, "message", "messages"))
	},
	ExportPart: func(part, parts any) string { return fmt.Sprintf("Part %d of %d.", part, parts) },
	ExportCut: func(shown, total, parts, size any) string {
		return fmt.Sprintf("The export stops after message %d of %d: /export sends at most %s of %s of each kind. The bot's admin can export everything with `membot admin export`.", shown, total, plural(parts, "file", "files"), size)
	},
	ExportLimit: func(perHour, again any) string {
		return fmt.Sprintf("/export sends at most %s an hour, and you have had them. The next one is possible at %s.", plural(perHour, "export", "exports"), again)
	},
	ExportRefused: func(reason any) string {
		return fmt.Sprintf("The export failed: Telegram refused to take its file (%s). Nothing is lost; the bot's admin can export everything with `membot admin export`.", reason)
	},
	ModeList:          "Modes (✓ is the current one). Tap one, or send /mode NAME:",
	ModeUnknown:       func(a1 any) string { return fmt.Sprintf("There is no mode “%s”. /mode lists them.", a1) },
	ModeAlready:       func(a1 any) string { return fmt.Sprintf("The assistant is in mode %s already.", a1) },
	ModeSwitched:      func(a1 any) string { return fmt.Sprintf("Mode: %s. It applies from your next message.", a1) },
	ModeSwitchedShort: func(a1 any) string { return fmt.Sprintf("Mode: %s", a1) },
	Usage: func(a1, a2, a3, a4, a5, a6 any) string {
		return fmt.Sprintf("Your usage (%s time; messages you sent, commands not counted)\nToday: messages: %d, tokens: %d%s\nThis month: messages: %d, tokens: %d", a1, a2, a3, a4, a5, a6)
	},
	UsageLimit: func(a1 any) string { return fmt.Sprintf(" of %d a day", a1) },
	GroupAdminsOnly: func(a1 any) string {
		return fmt.Sprintf("In a group, %s is for the group's admins: it changes or shows what everyone here shares.", a1)
	},
	GroupAdminsOnlyButton: "Only the group's admins may change this.",
	NotYourButton:         "This button is not yours.",
	FactsPrivate:          "What I remember about you is yours: I keep it, show it and change it only in our private chat, never in a group.",
	ApprovalUnreadable: func(a1, a2 any) string {
		return fmt.Sprintf("🔐 The assistant asked to use the tool %s, but the call cannot be shown whole (%s), so it cannot be approved.", a1, a2)
	},
	AdminsOnly: func(a1 any) string {
		return fmt.Sprintf("%s is for the bot's admins only. /help lists the commands you can use.", a1)
	},
	Undeliverable: func(a1 any) string {
		return fmt.Sprintf("Telegram refused (part of) my reply (%s), so it did not reach you whole. Please ask again, perhaps for a shorter answer.", a1)
	},
	Thinking: "💭 How the model thought about it",
	// Drafts and Stop
	StopButton:   "⏹ Stop",
	StoppedEmpty: "⏹ Stopped before any text was written.",
	ToolRound:    func(tool any) string { return fmt.Sprintf("⚙️ Using %s…", tool) },
	ToolStatus: map[string]string{
		"search_history": "🔎 Searching your history…",
		"fetch_url":      "🌐 Reading the page…",
		"calculator":     "🧮 Calculating…",
		"remember":       "📝 Noting it down…",
		"forget":         "🗑 Forgetting…",
		"set_reminder":   "⏰ Setting a reminder…",
		"current_time":   "🕒 Checking the time…",
	},
	// Threads
	NewThreadButton: "🧵 New thread",
	NewThreadName:   "New thread",
	NewThreadHello:  "A new thread: write here, and this conversation starts from nothing (what I remember about you stays).",
	NewThreadFailed: "I could not open a new thread here. You can start one from the chat's menu.",
	ToolsBuiltin:    func(list any) string { return fmt.Sprintf("🧰 Built-in tools: %s", list) },
	ToolsServer: func(name, transport, state any) string {
		return fmt.Sprintf("MCP server %s (%s), %s:", name, transport, state)
	},
	ToolStates: map[string]string{"starting": "starting", "ready": "ready", "down": "down (it is tried again at the next use)"},
	ToolStateDown: func(why any) string {
		return fmt.Sprintf("down (%s; it is tried again at the next use)", why)
	},
	ToolTrusted: "trusted",
	ToolsLeftOut: func(list any) string {
		return fmt.Sprintf("⚠️ Left out, over MCP_TOOLS_BUDGET (all tools' descriptions together): %s", list)
	},
	ToolOfferedAs:  func(name any) string { return fmt.Sprintf("(as %s)", name) },
	ToolAsksFirst:  "asks first",
	ToolRunsFreely: "runs without asking",
	ToolsNoServers: "No MCP servers are set up (MCP_SERVERS).",
	ToolOrigin:     func(server, tool any) string { return fmt.Sprintf("MCP server %s, its tool %s", server, tool) },
	Help: map[string]string{
		"tools":           "the tools I can use, and which ask you first",
		"stop":            "stop the answer being written",
		"stats":           "admins: users, activity and tokens today",
		"web":             "admins: a sign-in link to the web pages",
		"user":            "admins: a summary of one user: /user ID or /user @name",
		"users":           "admins: who may use the bot; allow, block, revoke",
		"approvals":       "actions waiting for your approval",
		"model":           "the model that answers in this chat; /model NAME switches",
		"memory":          "what I remember about you",
		"forget":          "delete what I remember: /forget N, or /forget all",
		"reminders":       "your reminders",
		"tasks":           "scheduled tasks: pause, resume or delete them",
		"cancel_reminder": "cancel a reminder: /cancel_reminder N",
		"start":           "the greeting",
		"help":            "this list",
		"new":             "forget this conversation and start a fresh one (what I remember about you stays)",
		"retry":           "answer your last message again",
		"undo":            "take back your last message and the answer to it",
		"history":         "the last messages of this conversation: /history 20",
		"mode":            "the assistant's modes; /mode NAME switches",
		"export":          "this conversation as Markdown and JSON files",
		"usage":           "your messages and tokens today and this month",
		"voice":           "answer with voice messages too (again: stop)",
		"image":           "draw a picture: /image a lighthouse at dawn",
	},
	Mode: map[string]string{
		"default":    "the general assistant",
		"concise":    "short answers, no filler",
		"translator": "translates what you write (Russian ↔ English)",
		"coder":      "a programming assistant",
	},

	// What /undo and /retry took back with the turn
	TakenBackReminders: func(a1, a2 any) string {
		return fmt.Sprintf("Cancelled with it: %s it had set:\n%s", plural(a1, "reminder", "reminders"), a2)
	},
	TakenBackFacts: func(a1, a2 any) string {
		return fmt.Sprintf("Removed from /memory with it: %s it had saved:\n%s", plural(a1, "fact", "facts"), a2)
	},

	// Voice messages, photos and files
	VoiceOff:            "I cannot listen to voice messages here: no transcription model is set (TRANSCRIPTION_MODEL). Please write instead.",
	TranscriptionFailed: "Sorry, I could not transcribe this recording. Please try again, or write instead.",
	HeardNothing:        "I could not make out any words in this recording.",
	Heard:               func(a1 any) string { return fmt.Sprintf("🎙 I heard: “%s”", a1) },
	FileTooBig:          func(a1 any) string { return fmt.Sprintf("This file is too big for me: I take files of up to %s.", a1) },
	FileUnreadable: func(a1 any) string {
		return fmt.Sprintf("I could not read %s: it seems damaged, or is not what its name says.", a1)
	},
	UnsupportedFile: func(a1 any) string {
		return fmt.Sprintf("I cannot read %s. I understand text, voice messages, audio and video notes, photos and images, "+
			"text files (txt, md, csv, json, code, logs) and PDFs.", a1)
	},
	NoTextInFile: func(a1 any) string {
		return fmt.Sprintf("I found no text in %s (a scanned PDF holds only pictures of its pages).", a1)
	},
	FileTooHeavy: func(a1 any) string {
		return fmt.Sprintf("I stopped reading %s: it needs far more memory or time than a document of its size should, "+
			"so it is damaged or built to overload readers. If it is a real document, save it again as a new PDF, "+
			"or paste the text you need.", a1)
	},
	FileBusy: func(a1 any) string {
		return fmt.Sprintf("I am still reading your previous file. Please send %s again once I have answered about that one.", a1)
	},
	VisionOff:        "I cannot see images here. Send the photo with a caption that says what you need, or describe it.",
	VoiceRepliesOn:   "🔊 I will also answer with voice messages in this chat. /voice again turns it off.",
	VoiceRepliesOff:  "🔇 No more voice answers in this chat.",
	VoiceUnavailable: "Voice answers are not set up on this bot (TTS_MODEL is empty).",

	// /image
	ImageOff:   "Pictures are off on this bot (IMAGE_MODEL is empty).",
	ImageUsage: "Say what to draw: /image a lighthouse at dawn, in watercolour",
	ImageTooLong: func(a1 any) string {
		return fmt.Sprintf("That description is too long: I take up to %d characters.", a1)
	},
	VoiceOverBudget: func(a1, a2, a3 any) string {
		return fmt.Sprintf("This recording lasts %s and would count %d tokens, but you have %d left today. "+
			"Send a shorter one, or write instead.", a1, a2, a3)
	},
	ImageOverBudget: func(a1, a2 any) string {
		return fmt.Sprintf("A picture counts %d tokens, and you have fewer than that left today (the limit is %d a day). "+
			"Try again tomorrow.", a1, a2)
	},
	ImageFailed: "Sorry, I could not draw that picture. Please try again later, or describe it differently.",
	ImageDrawnBefore: "I drew this picture just before I restarted, so it may not have reached you. If it is not above, " +
		"send /image again: I did not draw it a second time, so it was counted once.",

	// First-run help and the apology for settings the model server refuses
	YourID: func(a1 any) string {
		return fmt.Sprintf("Your Telegram id: %d (the bot's owner puts it in ALLOWED_USER_IDS, or ADMIN_USER_IDS).", a1)
	},
	GroupID: func(a1 any) string {
		return fmt.Sprintf("This group's chat id: %d (the bot's owner puts it in ALLOWED_CHAT_IDS to let everyone here use the bot).", a1)
	},
	ApologyConfig: "Sorry, I can't answer: the model server refuses the bot's settings (its key, model or address). " +
		"Trying again won't help — please tell the bot's admin.",
}
