package memory

import (
	"context"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/internal/topic"
)

// Threads: in a private chat with topics, each topic is a conversation of
// its own (conversations.message_thread_id). Everything the bot does for
// an update happens in the update's topic, so the topic travels with the
// update's context (internal/topic) rather than through every method: the
// statements that find a chat's current conversation match it too, and a
// context without one (groups, chats without topics, background jobs)
// means no topic, as before topics existed.

// threadParam stands for the topic in a statement; scoped makes it the
// statement's last parameter.
const threadParam = "$thread"

// sameThread matches a conversation of the topic in threadParam (NULL
// outside topics).
const sameThread = `message_thread_id IS NOT DISTINCT FROM nullif(` + threadParam + `::bigint, 0)`

// newThread is the topic a new conversation gets.
const newThread = `nullif(` + threadParam + `::bigint, 0)`

// scoped binds threadParam in sql to ctx's topic, passed after args.
func scoped(ctx context.Context, sql string, args ...any) (string, []any) {
	if !strings.Contains(sql, threadParam) {
		return sql, args
	}
	return bindThread(sql, len(args)+1), append(args, topic.Of(ctx))
}

// bindThread numbers threadParam in sql as parameter n.
func bindThread(sql string, n int) string {
	return strings.ReplaceAll(sql, threadParam, "$"+strconv.Itoa(n))
}

// queueScoped queues sql, bound to ctx's topic, in batch.
func queueScoped(ctx context.Context, batch *pgx.Batch, sql string, args ...any) *pgx.QueuedQuery {
	sql, args = scoped(ctx, sql, args...)
	return batch.Queue(sql, args...)
}
