-- Message embeddings: whether the server has pgvector (migration 00019),
-- and the embeddings job's results (its cursor is memory/jobs').

-- name: enableVectors
SELECT membot_enable_vectors()

-- name: saveEmbeddings
INSERT INTO message_embeddings (message_id, conversation_id, model, embedding)
					VALUES (@message_id, @conversation_id::uuid, @model, @embedding::text::vector) ON CONFLICT (message_id) DO UPDATE SET model = excluded.model, embedding = excluded.embedding
