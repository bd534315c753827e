package agent

import (
	"strings"

	"github.com/membot/membot/internal/stamp"
	"github.com/membot/membot/memory"
)

// Where a part of an exchange came from, as the bot knows it: from the
// message's metadata (the kind of file it came with, whether Telegram
// marked it forwarded, its author in a group) and from the tool rows, never
// from what the text says. The memory model sees every part under its
// label (the summaries see every user row so). Facts are taken only from
// exchanges made wholly of the user's own words and tools whose results
// are not outside text (OwnOrigin, Registry.Outside): an exchange with a file, a forwarded message, a
// page or any other tool's result is not read for facts at all, since no
// code can tell which of a model's facts came from which part. What it
// holds becomes a fact only when the user confirms the remember call that
// saves it (tools.go, readOutside).
type Origin string

const (
	originOwnText   Origin = "the user's own message"
	originOwnVoice  Origin = "a transcript of the user's own voice message"
	originForwarded Origin = "a message the user forwarded (someone else's words, not the user's)"
	originViaBot    Origin = "a message the user sent via an inline bot (that bot's text, not the user's words)"
	originDocument  Origin = "a file the user sent (its text: not the user's words)"
	originAudio     Origin = "an audio file the user sent, transcribed (not necessarily the user's voice)"
	originImage     Origin = "an image the user sent, with its caption (what the image shows is not the user's words)"
	originMember    Origin = "a group member's message (their words, to be reported as theirs)"
	originScheduled Origin = "a scheduled task's instructions, run by the bot at its time (written when the task was set, not said by the user now)"
	OriginAnswer    Origin = "the assistant's answer (not the user's words)"
)

// Indented indents every line of a part's text after its first, so that
// no line of it can pass for the label of another part.
func Indented(s string) string { return strings.ReplaceAll(s, "\n", "\n    ") }

// OwnOrigin tells whether a part is the user's own words.
func OwnOrigin(o Origin) bool { return o == originOwnText || o == originOwnVoice }

// UserRow is what a user row's metadata says of where it came from.
type UserRow struct {
	Group     bool   // another author than the chat's own user, in a group
	Forwarded bool   // Telegram marked it forwarded
	ViaBot    string // the inline bot it was sent via; "" for none
	Scheduled bool   // a scheduled task's run
	Media     string // the kind of its first file; "" for none
}

// Origin is the origin of a user row: a group member's, forwarded, sent
// via an inline bot, a scheduled task's run, else by the kind of its first
// file.
func (r UserRow) Origin() Origin {
	switch {
	case r.Group:
		return originMember
	case r.Forwarded:
		return originForwarded
	case r.ViaBot != "":
		return originViaBot
	case r.Scheduled:
		return originScheduled
	}
	switch r.Media {
	case "":
		return originOwnText
	case KindVoice, KindVideoNote:
		return originOwnVoice
	case KindAudio:
		return originAudio
	case KindPhoto, KindImage:
		return originImage
	}
	return originDocument
}

// metaForwarded is the user row's metadata key that says Telegram marked
// the message forwarded.
const metaForwarded = "forwarded"

// metaViaBot is the user row's metadata key that names the inline bot the
// message was sent via.
const metaViaBot = "via_bot"

// Source is where text the user did not write, in what the model reads,
// came from: an approval asked because of it names it (bot/texts words
// each kind).
type Source struct {
	Kind SourceKind
	// Name is the page's host, the MCP server's, the file's, the member's,
	// the inline bot's or the tool's name; "" when there is none.
	Name string
}

// SourceKind is the kind of a Source.
type SourceKind string

// The kinds of outside text.
const (
	SourcePage      SourceKind = "page"      // a web page; Name: its host
	SourceSearch    SourceKind = "search"    // a web search's result
	SourceMCP       SourceKind = "mcp"       // an MCP server's result; Name: the server
	SourceDescribed SourceKind = "described" // an offered tool's description; Name: its MCP server (or the tool)
	SourceTool      SourceKind = "tool"      // another tool's result; Name: the tool
	SourceForwarded SourceKind = "forwarded" // a forwarded message
	SourceViaBot    SourceKind = "via_bot"   // a message sent via an inline bot; Name: its username
	SourceFile      SourceKind = "file"      // a file's text; Name: the file's name
	SourceImage     SourceKind = "image"     // an image and its caption
	SourceMember    SourceKind = "member"    // another group member's words; Name: who
)

// maxSourceName bounds a Source's Name, in bytes.
const maxSourceName = 100

// userSource is where a user row of the window came from when it is not
// the words of the turn's user (UserRow.Origin): another member's in a
// group, forwarded, sent via an inline bot, or a file's. A scheduled
// task's run counts as the user's: its prompt was set by them (schedule_task
// asks first after outside text).
func userSource(m memory.Message, turn *TurnInfo) (Source, bool) {
	var first Attachment
	if atts := decodeMedia(m.Media); len(atts) > 0 {
		first = atts[0]
	}
	row := UserRow{Group: !turn.Private() && m.AuthorID != turn.UserID, Forwarded: m.Forwarded, ViaBot: m.ViaBot, Media: first.Kind}
	switch row.Origin() {
	case originOwnText, originOwnVoice, originScheduled:
		return Source{}, false
	case originMember:
		return Source{Kind: SourceMember, Name: memberName(m.Content)}, true
	case originForwarded:
		return Source{Kind: SourceForwarded}, true
	case originViaBot:
		return Source{Kind: SourceViaBot, Name: Truncate(m.ViaBot, maxSourceName)}, true
	case originImage:
		return Source{Kind: SourceImage}, true
	}
	return Source{Kind: SourceFile, Name: Truncate(first.FileName, maxSourceName)}, true
}

// memberName is the author a group row's text begins with, after its
// stamp: "Anna (@anna): ..." (bot/texts.Author, whose names hold no
// colon); "" when it has none.
func memberName(content string) string {
	name, _, ok := strings.Cut(stamp.Strip(content), ": ")
	if !ok {
		return ""
	}
	return Truncate(name, maxSourceName)
}
