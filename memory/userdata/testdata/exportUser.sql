SELECT name, rows FROM membot_export_user($1)
