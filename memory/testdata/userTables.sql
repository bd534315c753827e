SELECT c.table_name, array_agg(c.column_name::text ORDER BY c.column_name)
		FROM information_schema.columns c
		JOIN information_schema.tables t USING (table_schema, table_name)
		WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
		  AND c.column_name IN ('telegram_user_id', 'chat_id')
		GROUP BY c.table_name ORDER BY c.table_name
