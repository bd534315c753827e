-- A turn's auto-recall (memory/search.go, autoRecallRare) brings back
-- older rows that share a stem the conversation has used at most 20
-- times. Telling a stem's uses by looking it up is cheap while it is rare
-- and dear once it is not: the full-text index hands over every row of
-- the stem before any is read. So the turn first counted each stem's uses
-- in the window the model sees anyway (reading those rows' stems: about
-- 0.1 ms on the path of every reply) and looked up only the stems it held
-- 20 times or less.
--
-- Now a stem found used more than 20 times is written here, once, and a
-- turn looks up only the stems of its message not listed for its
-- conversation. A stem's uses only grow while the conversation's rows
-- stay; when rows go, or change their words (the retention purge,
-- /rollback, `membot admin forget`, an admin's edit), the conversation's
-- list is dropped and learned again from the rows left. The rows are
-- stems of the conversation's frequent words, as the messages keep them;
-- they go with the conversation. Known gap: a delete that commits while a
-- turn of the same conversation is counting (an admin's forget or SQL; a
-- chat's own turns and commands run one at a time) can leave a stem
-- listed that the rows left use less often; its rows are then not
-- recalled unasked until the conversation next loses rows
-- (search_history still finds them).

-- +goose Up
CREATE TABLE conversation_frequent_stems (
	conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	lexeme text NOT NULL,
	PRIMARY KEY (conversation_id, lexeme)
);

-- +goose StatementBegin
CREATE FUNCTION membot_forget_frequent_stems() RETURNS trigger LANGUAGE plpgsql
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

CREATE TRIGGER messages_forget_frequent_stems_deleted AFTER DELETE ON messages
	REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION membot_forget_frequent_stems();
-- An UPDATE trigger with a transition table cannot name columns: this one
-- is per row, and fires only when a row's stems (kept right by the
-- trigger of 00026) or its conversation change, which the bot never does.
CREATE TRIGGER messages_forget_frequent_stems_updated AFTER UPDATE OF content, role, search_vector, conversation_id
	ON messages FOR EACH ROW
	WHEN (OLD.search_vector IS DISTINCT FROM NEW.search_vector OR OLD.conversation_id IS DISTINCT FROM NEW.conversation_id)
	EXECUTE FUNCTION membot_forget_frequent_stems();

-- +goose Down
DROP TRIGGER messages_forget_frequent_stems_updated ON messages;
DROP TRIGGER messages_forget_frequent_stems_deleted ON messages;
DROP FUNCTION membot_forget_frequent_stems();
DROP TABLE conversation_frequent_stems;
