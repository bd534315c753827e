-- name: adminViewsState
SELECT membot_timezone(), current_database(),
		EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'membot_readonly')

