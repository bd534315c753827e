// Package topic carries the topic of a private chat (Telegram's
// message_thread_id) with the context of the work done for an update: the
// database layer reads it to pick the topic's conversation, the Telegram
// client to send into the topic. Zero, the default, means no topic.
package topic

import "context"

type key struct{}

// With returns ctx for work in topic thread (0: none).
func With(ctx context.Context, thread int64) context.Context {
	if thread == 0 {
		return ctx
	}
	return context.WithValue(ctx, key{}, thread)
}

// Of is the topic ctx works in; 0 when none.
func Of(ctx context.Context) int64 {
	thread, _ := ctx.Value(key{}).(int64)
	return thread
}
