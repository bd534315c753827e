-- The pictures an update drew are looked up by the update (PicturesDrawn):
-- an update handled again after a restart must not draw, and bill, a
-- picture twice. The index holds only the image calls, and is built
-- without locking llm_calls against the model calls being recorded.

-- +goose NO TRANSACTION
-- +goose Up
CREATE INDEX CONCURRENTLY IF NOT EXISTS llm_calls_image_update ON llm_calls (update_id) WHERE purpose = 'image';

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS llm_calls_image_update;
