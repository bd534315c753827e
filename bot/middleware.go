package bot

import (
	"context"
	"errors"
	"net/http"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/memory/queue"
)

// step handles an update, or passes it on to the next step.
type step func(ctx context.Context, in *incoming) (*queue.Delivery, error)

// chain is what every update goes through before the step that answers
// it, outermost first:
//   - routed: the update is decoded and routeUpdate decides whether it is
//     for the bot at all (routing.go);
//   - refusalsTold: a reply Telegram refused for good is not silence: the
//     user is told, in a short plain message, and the chat goes on;
//   - gated: the allowlist, or the owner and whom they allowed, and the
//     rate and token limits (bot/gate);
//   - measured: the outcome of a turn of the model, for the metrics.
//
// A panic is not recovered here: the dispatcher recovers it, counts it
// against the update's attempts and, after them, gives the update up with
// the apology (inbox.Dispatcher, Handler.GiveUp).
func (h *Handler) chain(final step) step {
	wrap := []func(step) step{h.routed, h.refusalsTold, h.gated, h.measured}
	s := final
	for i := len(wrap) - 1; i >= 0; i-- {
		s = wrap[i](s)
	}
	return s
}

func (h *Handler) routed(next step) step {
	return func(ctx context.Context, in *incoming) (*queue.Delivery, error) {
		if in.run != nil {
			return next(ctx, in) // a task's run: routed by scheduledRun
		}
		u, upd := in.update, in.decoded
		r := routeUpdate(upd, &h.Client.Self)
		switch r.action {
		case ignore:
			kind := telegram.KindOf(u.Payload)
			if kind == telegram.StoppedGeneration {
				return nil, nil // served already: the answer it stops read it (bot/stop)
			}
			h.Log.Debug("update ignored", "update_id", u.UpdateID, "chat_id", u.ChatID, "reason", r.reason)
			return dropped(kind, r.reason), nil
		case answerCallback:
			q := upd.CallbackQuery
			if q.Message == nil {
				// A button of an inline message (inline mode, which the bot
				// does not serve): answered so the client stops its spinner.
				return dropped(telegram.KindOf(u.Payload), "a button of an inline message"), h.Client.AnswerCallback(ctx, q.ID, "")
			}
			in.msg, in.user, in.query = q.Message, userOf(telegram.SenderOf(upd)), q
		case membership:
			// Answers to it go to the group; its "message" is the change.
			m := upd.MyChatMember
			in.msg, in.user = &tgbotapi.Message{Chat: &m.Chat, From: &m.From, Date: m.Date}, userOf(&m.From)
		default:
			in.msg, in.edited, in.user = r.msg, r.edited, userOf(telegram.SenderOf(upd))
		}
		in.route = r
		return next(ctx, in)
	}
}

// dropped is the delivery of an update of kind the bot does not serve:
// nothing was sent, and the inbox keeps why (updates.dropped).
func dropped(kind, why string) *queue.Delivery {
	return &queue.Delivery{Dropped: kind + ": " + why}
}

func (h *Handler) gated(next step) step {
	return func(ctx context.Context, in *incoming) (*queue.Delivery, error) {
		if stop, err := h.gate().Admit(ctx, h.arrival(in)); stop {
			return nil, err
		}
		return next(ctx, in)
	}
}

// measured reports a turn's outcome when it has one: a turn to be retried
// has none yet, and neither has one that waits for approval.
func (h *Handler) measured(next step) step {
	return func(ctx context.Context, in *incoming) (*queue.Delivery, error) {
		start := time.Now()
		delivery, err := next(ctx, in)
		if !in.turn {
			return delivery, err
		}
		switch {
		case delivery != nil:
			orNone(h.Metrics).Turn("answered", time.Since(start))
		case err != nil && !Transient(err) && ctx.Err() == nil:
			orNone(h.Metrics).Turn("failed", time.Since(start))
		}
		h.logTurn(ctx, in, delivery, err, time.Since(start))
		return delivery, err
	}
}

func (h *Handler) refusalsTold(next step) step {
	return func(ctx context.Context, in *incoming) (*queue.Delivery, error) {
		delivery, err := next(ctx, in)
		apiErr, refused := telegram.APIError(err)
		if !refused || !telegram.IsPermanent(err) || apiErr.Code == http.StatusForbidden {
			return delivery, err // 403: the user blocked the bot, or it left the chat: no one to tell
		}
		h.Log.Warn("Telegram refused a reply; telling the user", "update_id", in.update.UpdateID,
			"chat_id", in.msg.Chat.ID, "err", err)
		told := tr(in.lang()).Undeliverable
		var own command.Told // a command that tells a refusal in its own words (what failed)
		if errors.As(err, &own) {
			told = own.Text
		}
		if _, sendErr := h.send(ctx, in, told(apiErr.Message)); sendErr != nil {
			h.Log.Warn("telling the user of a refused reply failed too", "chat_id", in.msg.Chat.ID, "err", sendErr)
		}
		return delivery, err
	}
}
