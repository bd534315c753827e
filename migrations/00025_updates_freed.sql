-- The inbox stores a new update under Telegram's id unless a row already
-- names that id: the inbox's own, or a message, rollback or
-- once-per-update event of an update whose inbox row is gone (the
-- retention purge, `membot admin forget`). Asking all of those tables on
-- every update cost a tenth of a millisecond on the path of every reply
-- (seven index probes and seven max() subplans in saveUpdateSQL).
--
-- Telegram's ids grow, so a new update's id is above every id whose inbox
-- row was deleted, and then only the inbox itself (its primary key) and
-- the messages (which the purge keeps) can hold it. updates_freed keeps
-- that bound: the highest update id whose inbox row was deleted is the
-- greatest `through`, a row added by a trigger after every DELETE from
-- updates that frees a higher id, in whatever statement. Rows are only
-- added, never updated, so two deleting transactions (the purger, a
-- forget) never wait on each other here. An id at or below the bound
-- (Telegram's ids started again, another bot) is checked against every
-- table, as before (memory/queue/inbox.go).

-- +goose Up
CREATE TABLE updates_freed (
	through bigint NOT NULL,
	freed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX updates_freed_through ON updates_freed (through);
-- What the inbox may have freed before: every id another table names.
INSERT INTO updates_freed (through) SELECT greatest(0,
	(SELECT max(update_id) FROM messages), (SELECT max(update_id) FROM conversation_rollbacks),
	(SELECT max(update_id) FROM events));

-- +goose StatementBegin
CREATE FUNCTION membot_updates_freed() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
	INSERT INTO updates_freed (through)
	SELECT f.through FROM (SELECT max(update_id) AS through FROM freed) f
	WHERE f.through > coalesce((SELECT max(through) FROM updates_freed), -1);
	RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER updates_freed AFTER DELETE ON updates
	REFERENCING OLD TABLE AS freed FOR EACH STATEMENT EXECUTE FUNCTION membot_updates_freed();

-- +goose Down
DROP TRIGGER updates_freed ON updates;
DROP FUNCTION membot_updates_freed();
DROP TABLE updates_freed;
