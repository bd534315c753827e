SELECT set_config('synchronous_commit', 'off', true)
