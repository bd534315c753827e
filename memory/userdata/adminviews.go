package userdata

import (
	"context"
	"fmt"
)

// PrepareAdminViews makes the admin views (conversation_log, daily_usage,
// tool_usage) show local times in zone for sessions opened from now on, by
// setting membot.timezone on the database (that needs its owner), and checks
// that the read-only role exists. It reports whether it changed the zone,
// and what an operator should fix.
func (s *Store) PrepareAdminViews(ctx context.Context, zone string) (changed bool, warnings []string, err error) {
	var current string
	var roleExists bool
	err = s.pool.QueryRow(ctx, adminViewsStateSQL).Scan(&current, &roleExists)
	if err != nil {
		return false, nil, fmt.Errorf("prepare admin views: %w", translate(err))
	}
	if !roleExists {
		warnings = append(warnings, "the read-only role membot_readonly does not exist (the database user may not create roles); docs/ADMIN.md has the SQL to create it")
	}
	if current != zone {
		if _, err := s.pool.Exec(ctx, setAdminViewsZoneSQL, zone); err != nil {
			warnings = append(warnings, fmt.Sprintf("the admin views show %s times, not TIMEZONE's: setting membot.timezone failed: %v", current, err))
		} else {
			changed = true
		}
	}
	return changed, warnings, nil
}

// The statements of this file, whole in sql/adminviews.sql.
var (
	adminViewsStateSQL   = statement("adminViewsState")
	setAdminViewsZoneSQL = statement("setAdminViewsZone")
)
