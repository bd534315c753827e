UPDATE messages SET telegram_message_id = $2,
			metadata = metadata || jsonb_strip_nulls(jsonb_build_object('telegram_message_ids', $3::bigint[],
				'shown_as', NULLIF($4, ''))) WHERE id = $1
