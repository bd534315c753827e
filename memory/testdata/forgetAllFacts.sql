WITH gone AS (DELETE FROM memories WHERE telegram_user_id = $1 RETURNING superseded_by)
		SELECT count(*) FROM gone WHERE superseded_by IS NULL
