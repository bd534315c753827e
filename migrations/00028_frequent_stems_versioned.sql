-- 00027 left a gap: a delete that committed while a turn of the same
-- conversation was counting a stem's uses could leave the stem listed
-- in conversation_frequent_stems although the rows left use it less
-- often. The turn counted the deleted rows (its snapshot still held
-- them), and the delete's trigger, which drops the list, could not see
-- the row the turn had not yet committed.
--
-- Now each conversation has stems_version, raised by the same trigger
-- before it drops the list. A turn writes a stem only if the version it
-- counted under is still the version once it holds the conversation's
-- row FOR SHARE (memory/search.go, autoRecallFound):
-- - a delete that raised the version first holds the row: the turn
--   skips it, or, once the delete has committed, sees the new version;
--   either way it writes nothing;
-- - a turn that took its lock first makes the delete's trigger wait for
--   the turn's commit, and the trigger's DELETE, a statement after the
--   wait, then sees and drops what the turn wrote.
-- The turn's lock is SKIP LOCKED: while a delete holds the row the turn
-- writes nothing (a later turn learns the stem), and never waits there.
-- It is taken only by a turn with a stem to write, which happens once per
-- stem and conversation.
--
-- A transaction raises a conversation's version once (stems_changed_in
-- names the transaction that did): an UPDATE of many rows fires the row
-- trigger for each, and updating the same conversations row again and
-- again in one transaction grows its version chain, so that 20,000 rows
-- took 6.4 s instead of 0.6 s. Once raised, the row stays locked until
-- the commit, so no turn can write in between.

-- +goose Up
ALTER TABLE conversations ADD COLUMN stems_version bigint NOT NULL DEFAULT 0,
	ADD COLUMN stems_changed_in xid8;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION membot_forget_frequent_stems() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
DECLARE
	changed_ids uuid[];
BEGIN
	IF TG_LEVEL = 'ROW' THEN
		changed_ids := ARRAY[OLD.conversation_id, NEW.conversation_id];
	ELSE
		changed_ids := ARRAY(SELECT DISTINCT conversation_id FROM changed);
	END IF;
	changed_ids := ARRAY(SELECT id FROM conversations WHERE id = ANY (changed_ids)
		AND stems_changed_in IS DISTINCT FROM pg_current_xact_id());
	IF cardinality(changed_ids) = 0 THEN
		RETURN NULL;
	END IF;
	-- Ordered, so two deletes over the same conversations wait for each other, not in a deadlock.
	PERFORM FROM conversations WHERE id = ANY (changed_ids) ORDER BY id FOR NO KEY UPDATE;
	UPDATE conversations SET stems_version = stems_version + 1, stems_changed_in = pg_current_xact_id()
		WHERE id = ANY (changed_ids);
	DELETE FROM conversation_frequent_stems WHERE conversation_id = ANY (changed_ids);
	RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION membot_forget_frequent_stems() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
	IF TG_LEVEL = 'ROW' THEN
		DELETE FROM conversation_frequent_stems WHERE conversation_id IN (OLD.conversation_id, NEW.conversation_id);
	ELSE
		DELETE FROM conversation_frequent_stems WHERE conversation_id IN (SELECT DISTINCT conversation_id FROM changed);
	END IF;
	RETURN NULL;
END
$$;
-- +goose StatementEnd
ALTER TABLE conversations DROP COLUMN stems_changed_in, DROP COLUMN stems_version;
