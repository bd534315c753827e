// Package texts is every text the bot writes itself, in English and in
// Russian (For picks one by the user's Telegram language). The fields are
// grouped by the file of bot that writes them.
package texts

import "strings"

// Texts is every text the bot writes itself, in one language. A text with
// arguments is a function taking exactly as many as its format has, so a
// wrong count is a compile error rather than a "%!d(MISSING)" in a chat.
type Texts struct {
	// the gate (bot/gate)
	AccessDenied      func(a1 any) string
	AccessDeniedShort string
	RateLimited       func(a1 any) string
	TokenLimit        func(a1, a2 any) string
	// the gate's owner mode: the claim, strangers' requests, the owner's buttons, /users
	Unclaimed           string
	ClaimDone           func(name any) string
	ClaimWrong          func(left any) string
	ClaimWrongLast      string
	ClaimExpired        string
	PairingAsked        string
	PairingAskedGroup   string
	PairingWaiting      string
	PairingFull         string
	PairingRequest      func(name, id, language, chat any) string
	PairingGroupRequest func(title, id, by, language any) string
	PairingPrivateChat  string
	PairingAllow        string
	PairingDeny         string
	PairingBlock        string
	PairingAllowedAt    func(at any) string
	PairingDeniedAt     func(at any) string
	PairingBlockedAt    func(at any) string
	PairingGone         string
	PairingOwnersOnly   string
	PairingAllowedYou   string
	PairingAllowedGroup string
	PairingDeniedYou    string
	PairingDeniedGroup  string
	UsersHeads          [5]string // owners and admins, allowed, blocked, groups, waiting
	UsersNobody         string
	UsersUsage          string
	UsersRevoke         func(name any) string
	UsersAllowedNow     func(id any) string
	UsersBlockedNow     func(id any) string
	UsersRevoked        func(id any) string
	UsersNothing        func(id any) string
	UsersOwnerStays     string
	// bot/usage (/stats, /user)
	Stats       func(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12 any) string
	User        func(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13 any) string
	UserUsage   string
	UserUnknown func(a1 any) string
	// bot/weblink (/web, /memory's Mini App)
	WebSignIn      func(link, minutes any) string
	WebLocal       func(addr any) string
	WebOff         func(why any) string
	WebFailed      string
	WebPrivate     string
	MemoryAppIntro string
	MemoryAppOpen  string
	// bot/approvals.go and bot/approve
	ApprovalAsk       func(a1, a2 any) string
	ApprovalClosed    func(tool, call, outcome any) string
	OutcomeApproved   func(at any) string
	OutcomeRejected   func(at any) string
	OutcomeCancelled  string
	Approve           string
	Reject            string
	Approved          string
	Rejected          string
	ApprovalNotYours  string
	ApprovalUnknown   string
	WasApproved       string
	WasRejected       string
	WasCancelled      string
	ApprovalGone      string
	ApprovalsNone     string
	ApprovalsList     string
	ApprovalsCanceled func(a1 any) string
	// ApprovalFollows says why a call asks first: the request follows
	// text the user did not write, from the sources named by
	// OutsideSources (agent.SourceKind: its words, %s the source's name).
	ApprovalFollows func(sources any) string
	OutsideSources  map[string]string
	MoreCharacters  func(n any) string    // after a value cut short
	ShowWhole       string                // the button that sends the whole call
	WholeCall       func(tool any) string // the caption of the whole call's file
	OutcomeNotRun   func(why any) string
	ToolNotOffered  func(tool any) string // why an approved call does not run
	ArgumentsBroken string                // why an approved call does not run: its arguments cannot be read
	CannotRunNow    string                // why, when no other reason fits
	// bot/tools (/tools)
	ToolsBuiltin   func(list any) string
	ToolsServer    func(name, transport, state any) string
	ToolStates     map[string]string // an MCP server's state (mcptools.State...)
	ToolStateDown  func(why any) string
	ToolTrusted    string
	ToolsLeftOut   func(list any) string
	ToolOfferedAs  func(name any) string
	ToolAsksFirst  string
	ToolRunsFreely string
	ToolsNoServers string
	ToolOrigin     func(server, tool any) string // where a tool waiting for approval comes from
	// bot/choice (/model)
	ModelList          string
	ModelOnlyOne       func(a1 any) string
	ModelUnknown       func(a1 any) string
	ModelAlready       func(a1 any) string
	ModelSwitched      func(a1 any) string
	ModelSwitchedShort func(a1 any) string
	// bot/facts (/memory, /forget)
	MemoryList   func(a1 any) string
	MemoryEmpty  string
	ForgetUsage  string
	Forgotten    func(a1 any) string
	ForgotAll    func(a1 any) string
	ForgetNone   string
	ForgetNoSuch func(a1 any) string
	// bot/remind and bot/tasks
	Reminder            func(a1 any) string
	ReminderLate        func(a1 any) string
	RemindersList       func(a1 any) string
	RemindersNone       string
	CancelReminderUsage string
	RemindersCancelled  func(a1 any) string
	ReminderNoSuch      func(a1 any) string
	RemindersOwnOnly    string
	// scheduled.go
	TaskLate func(prompt, due any) string
	// tasks (bot/tasks)
	TasksList    func(lines any) string
	TasksNone    string
	TaskLine     func(n, prompt, schedule, zone any) string
	TaskNext     func(at any) string
	TaskIsPaused string
	TaskPause    func(n any) string
	TaskResume   func(n any) string
	TaskDelete   func(n any) string
	TaskPaused   string
	TaskResumed  func(at any) string
	TaskDeleted  string
	TaskNoSuch   string
	TaskReminder string
	// handler.go, commands.go, help.go
	Start    func(a1 any) string
	HelpPage func(a1 any) string
	New      string
	Apology  string
	Empty    string
	Unknown  string
	TextOnly string
	// bot/cmd_rollback.go, bot/export (/history, /export), bot/choice (/mode)
	NothingToRetry    string
	NothingToUndo     string
	Undone            func(a1, a2 any) string
	UndoneAgain       func(a1 any) string
	HistoryUsage      func(a1 any) string
	HistoryEmpty      string
	HistoryHeader     func(a1, a2 any) string
	You               string
	Bot               string
	ExportEmpty       string
	ExportCaption     func(a1 any) string
	ExportPart        func(part, parts any) string
	ExportCut         func(shown, total, parts, size any) string
	ExportLimit       func(perHour, again any) string
	ExportRefused     func(reason any) string
	ModeList          string
	ModeUnknown       func(a1 any) string
	ModeAlready       func(a1 any) string
	ModeSwitched      func(a1 any) string
	ModeSwitchedShort func(a1 any) string
	// bot/usage (/usage)
	Usage      func(a1, a2, a3, a4, a5, a6 any) string
	UsageLimit func(a1 any) string

	// the gate (groups)
	GroupAdminsOnly       func(a1 any) string
	AdminsOnly            func(a1 any) string
	GroupAdminsOnlyButton string
	NotYourButton         string
	FactsPrivate          string
	ApprovalUnreadable    func(a1, a2 any) string
	// middleware.go
	Undeliverable func(a1 any) string
	// answer.go (the model's thinking, bot/present)
	Thinking string

	// Drafts and Stop
	StoppedEmpty string
	StopButton   string
	ToolRound    func(tool any) string
	ToolStatus   map[string]string // a tool's own status line, by name
	// Threads
	NewThreadButton string
	NewThreadName   string
	NewThreadHello  string
	NewThreadFailed string

	// Help is each command's one-line description, by name (/help and the menu).
	Help map[string]string
	// Mode is each built-in mode's description, by name.
	Mode map[string]string

	// What /undo and /retry took back with the turn: a count
	// (plural) and the texts, one a line.
	TakenBackReminders func(a1, a2 any) string
	TakenBackFacts     func(a1, a2 any) string

	// Voice messages, photos and files (bot/media.go), /voice (bot/choice)
	VoiceOff            string
	TranscriptionFailed string
	HeardNothing        string
	Heard               func(a1 any) string
	FileTooBig          func(a1 any) string
	FileUnreadable      func(a1 any) string
	UnsupportedFile     func(a1 any) string
	NoTextInFile        func(a1 any) string
	FileTooHeavy        func(a1 any) string
	FileBusy            func(a1 any) string
	VisionOff           string
	VoiceRepliesOn      string
	VoiceRepliesOff     string
	VoiceUnavailable    string

	// /image (bot/draw)
	ImageOff        string
	ImageUsage      string
	ImageTooLong    func(a1 any) string
	ImageOverBudget func(a1, a2 any) string
	// VoiceOverBudget: a recording's length, the tokens it would count, the tokens left today.
	VoiceOverBudget func(a1, a2, a3 any) string
	ImageFailed     string
	// ImageDrawnBefore: an /image the bot restarted while answering, whose
	// picture was drawn (and counted) before it.
	ImageDrawnBefore string

	// First-run help (the ids the settings want) and the apology
	// for a model server that refuses the bot's settings.
	YourID        func(a1 any) string
	GroupID       func(a1 any) string
	ApologyConfig string
}

// RunningTools is the line a draft shows while tools run.
func (t *Texts) RunningTools(names []string) string {
	lines := make([]string, 0, len(names))
	for _, name := range names {
		if line, ok := t.ToolStatus[name]; ok {
			lines = append(lines, line)
		} else {
			lines = append(lines, t.ToolRound(name))
		}
	}
	return strings.Join(lines, "\n")
}

// For returns the texts for a Telegram language_code: Russian for ru (and
// its regional variants), English otherwise.
func For(languageCode string) *Texts {
	if languageCode == "ru" || strings.HasPrefix(languageCode, "ru-") {
		return &russian
	}
	return &english
}
