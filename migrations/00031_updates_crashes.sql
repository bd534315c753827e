-- An update whose handling kills the process (a fatal error, the kernel's
-- OOM killer) would be taken over by the next run and kill it again, for
-- ever. crashes counts the runs that died with the update in hand: the
-- claim raises it when it takes the update over from an owner that is gone
-- without handing it back (a run that stops cleanly hands its updates
-- back, state 'pending'). At 3 the bot gives the update up with an apology
-- and the chat goes on (bot/inbox).

-- +goose Up
ALTER TABLE updates ADD COLUMN crashes integer NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE updates DROP COLUMN crashes;
