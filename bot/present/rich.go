package present

import (
	"context"
	"errors"
	"log/slog"
	"regexp"
	"unicode/utf8"

	"github.com/membot/membot/bot/telegram"
)

// Rich messages. An answer whose Markdown has a table, headings, a nested
// list, math or a code block is sent as a rich message (and its draft is a
// rich draft) when the Bot API server has them: Telegram then shows the
// table as a table, not as pipes. The HTML rendering is the fallback (a
// server without rich messages, an answer longer than one rich message, a
// rich message refused), and plain text the last resort. The stored row
// keeps the model's Markdown; metadata.shown_as says how it was shown.

var (
	richTable   = regexp.MustCompile(`(?m)^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$`)
	richHeading = regexp.MustCompile(`(?m)^#{1,6} \S`)
	richNested  = regexp.MustCompile(`(?m)^(\s*[-*+]|\s*\d+[.)])\s.*\n(  |\t)+([-*+]|\d+[.)])\s`)
	richMath    = regexp.MustCompile(`\$\$[^$]+\$\$|\\\[[\s\S]+?\\\]|\\\([\s\S]+?\\\)`)
	richCode    = regexp.MustCompile("(?m)^```")
)

// NeedsRich tells whether Markdown has what only a rich message shows well:
// a table, a heading, a nested list, math or a code block.
func NeedsRich(markdown string) bool {
	return richTable.MatchString(markdown) || richHeading.MatchString(markdown) || richNested.MatchString(markdown) ||
		richMath.MatchString(markdown) || richCode.MatchString(markdown)
}

// FitsRich tells whether Markdown fits one rich message.
func FitsRich(markdown string) bool {
	return markdown != "" && utf8.RuneCountInString(markdown) <= telegram.MaxRichLength
}

// richFor tells whether text should go as a rich message.
func richFor(client *telegram.Client, text string) bool {
	return NeedsRich(text) && FitsRich(text) && client.Supports(telegram.RichMethod)
}

// richRefused tells whether a failed rich message should go as HTML
// instead (the server does not know rich messages, or refused this one);
// other failures may pass and are retried. A server without rich messages
// is noted in the log once.
func richRefused(log *slog.Logger, chatID int64, err error) bool {
	var unknown *telegram.UnsupportedError
	switch {
	case errors.As(err, &unknown):
		if unknown.First {
			log.Warn("the Bot API server does not know "+unknown.Method+": answers with tables and the like go as HTML for the rest of this run", "err", err)
		}
		return true
	case telegram.IsPermanent(err):
		log.Debug("a rich message was refused; it goes as HTML", "chat_id", chatID, "err", err)
		return true
	}
	return false
}

// Answer sends the model's answer: as a rich message when it needs one and
// the server has them, else as HTML split to Telegram's limit (each part
// plain where its HTML is refused). It returns the messages and how the
// answer was shown; note gets them as each is sent.
func (p *Presenter) Answer(ctx context.Context, to To, markdown string, note Note) (Shown, error) {
	if richFor(p.Client, markdown) {
		id, err := p.Client.SendRichMessage(ctx, telegram.SendRichMessageParams{Chat: to.Chat, ReplyTo: to.ReplyTo, Markdown: markdown})
		if err == nil {
			if note != nil {
				note([]int64{id})
			}
			return Shown{IDs: []int64{id}, As: ShownRich}, nil
		}
		if !richRefused(p.Log, to.Chat.ID, err) {
			return Shown{}, err
		}
	}
	// Split before rendering, so that no cut falls inside a tag.
	ids, err := p.send(ctx, to, SplitMarkdown(markdown, telegram.MaxMessageLength), true, nil, note)
	return Shown{IDs: ids, As: ShownHTML}, err
}

// finishRich makes the message a streamed answer was edited into a rich
// message, when the answer needs one; ok is false when it does not, or
// could not (the answer goes as HTML then).
func (s *Stream) finishRich(ctx context.Context, final string) (ids []int64, ok bool, err error) {
	if len(s.ids) > 1 || !richFor(s.p.Client, final) {
		return nil, false, nil
	}
	if len(s.ids) == 1 {
		err = s.p.Client.EditRichMessage(ctx, telegram.EditRichMessageParams{ChatID: s.to.Chat.ID, MessageID: s.ids[0], Markdown: final})
		ids = s.ids
	} else {
		var id int64
		id, err = s.p.Client.SendRichMessage(ctx, telegram.SendRichMessageParams{Chat: s.to.Chat, ReplyTo: s.to.ReplyTo, Markdown: final})
		ids = []int64{id}
		if err == nil {
			s.note(ids)
		}
	}
	switch {
	case err == nil:
		s.ids, s.shownAs = ids, ShownRich
		return ids, true, nil
	case richRefused(s.p.Log, s.to.Chat.ID, err):
		return nil, false, nil
	}
	return s.ids, true, err
}
