SELECT membot_timezone(), EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'membot_readonly')
