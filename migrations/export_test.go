package migrations

import (
	"context"

	"github.com/pressly/goose/v3"
)

// DownTo undoes the migrations after version, newest first: the tests
// check that a Down runs.
func DownTo(ctx context.Context, dsn string, version int64) error {
	return withProvider(dsn, func(p *goose.Provider) error {
		_, err := p.DownTo(ctx, version)
		return err
	})
}
