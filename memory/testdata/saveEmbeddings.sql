INSERT INTO message_embeddings (message_id, conversation_id, model, embedding)
					VALUES ($1, $2::uuid, $3, $4::text::vector) ON CONFLICT (message_id) DO UPDATE SET model = excluded.model, embedding = excluded.embedding
