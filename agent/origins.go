package agent

import (
	"encoding/json"
	"strings"
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
	Scheduled bool   // a scheduled task's run
	Media     string // the kind of its first file; "" for none
}

// Origin is the origin of a user row: a group member's, forwarded, a
// scheduled task's run, else by the kind of its first file.
func (r UserRow) Origin() Origin {
	switch {
	case r.Group:
		return originMember
	case r.Forwarded:
		return originForwarded
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

// firstMediaKind is the kind of the first file of a user row's media JSON.
func firstMediaKind(raw json.RawMessage) string {
	if atts := decodeMedia(raw); len(atts) > 0 {
		return atts[0].Kind
	}
	return ""
}
