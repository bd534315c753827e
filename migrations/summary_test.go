package migrations_test

import (
	"testing"

	"github.com/membot/membot/migrations"
)

// The start-up says in one line which migrations it applied.
func TestSummaryIsOneLineForAllTheMigrationsApplied(t *testing.T) {
	for _, c := range []struct {
		applied []string
		want    string
	}{
		{nil, ""},
		{[]string{"00038_pairing.sql"}, "applied 1 migration (00038)"},
		{[]string{"00001_core.sql", "00002_x.sql", "00037_y.sql"}, "applied 3 migrations (00001..00037)"},
	} {
		if got := migrations.Summary(c.applied); got != c.want {
			t.Errorf("Summary(%v) = %q, want %q", c.applied, got, c.want)
		}
	}
}
