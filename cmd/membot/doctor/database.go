package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/cmd/membot/app"
	"github.com/membot/membot/internal/netcause"
	"github.com/membot/membot/migrations"
)

// database checks that the database answers, its version, the
// migrations, pgvector when EMBEDDINGS_MODEL wants it, and who else can
// reach an embedded one.
func (d *doctor) database(ctx context.Context) []Line {
	cfg := d.cfg.Database
	where := "DATABASE_URL"
	if cfg.URL == "" {
		where = "embedded in " + cfg.DataDir
	}
	dsn, stop, err := app.Database(ctx, cfg, d.log)
	if err != nil {
		var cfgErr *app.ConfigError
		if errors.As(err, &cfgErr) {
			return []Line{failed("database", err.Error(), "set DATABASE_URL to a PostgreSQL server, or install PostgreSQL for the embedded one (README)")}
		}
		return []Line{failed("database", "the embedded PostgreSQL did not start: "+err.Error(), "read "+cfg.DataDir+"/postgres.log")}
	}
	defer stop()
	callCtx, cancel := d.call(ctx)
	defer cancel()
	conn, err := pgx.Connect(callCtx, dsn)
	if err != nil {
		return []Line{because("database", netcause.Explain(err, app.DatabaseService))}
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var version string
	if err := conn.QueryRow(callCtx, "SHOW server_version").Scan(&version); err != nil {
		return []Line{because("database", netcause.Explain(err, app.DatabaseService))}
	}
	pc := conn.Config()
	server := fmt.Sprintf("PostgreSQL %s, %s@%s:%d/%s (%s)", strings.Fields(version)[0], pc.User, pc.Host, pc.Port, pc.Database, where)
	if cfg.URL == "" {
		server = fmt.Sprintf("PostgreSQL %s (%s)", strings.Fields(version)[0], where)
	}
	lines := []Line{d.migrations(callCtx, dsn, server)}
	if d.cfg.Memory.EmbeddingsModel != "" {
		lines = append(lines, vectors(callCtx, conn))
	}
	if cfg.URL == "" {
		lines = append(lines, embeddedAccess(callCtx, conn, cfg.DataDir))
	}
	return lines
}

// migrations says how many migrations are applied and which are pending
// (the bot applies those at its start).
func (d *doctor) migrations(ctx context.Context, dsn, server string) Line {
	applied, pending, err := migrations.Pending(ctx, dsn)
	switch {
	case err != nil:
		return failed("database", server+"; the migrations cannot be read: "+err.Error(), "run membot migrate status")
	case len(pending) > 0:
		return ok("database", "%s; %d migrations applied, %d pending (%s): the bot applies them at its start, or membot migrate",
			server, applied, len(pending), list(pending, 3))
	}
	return ok("database", "%s; %d migrations applied, none pending", server, applied)
}

// vectors checks that semantic recall can keep embeddings.
func vectors(ctx context.Context, conn *pgx.Conn) Line {
	var installed, available bool
	err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector'),
		EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')`).Scan(&installed, &available)
	switch {
	case err != nil:
		return failed("pgvector", "cannot tell: "+err.Error(), "")
	case installed:
		return ok("pgvector", "installed: semantic recall keeps embeddings")
	case available:
		return ok("pgvector", "available: the bot creates the extension at its start (CREATE EXTENSION vector needs the right to)")
	}
	return failed("pgvector", "EMBEDDINGS_MODEL is set, but this PostgreSQL has no pgvector: recall is full-text search alone",
		"install pgvector on the database server (Debian: postgresql-NN-pgvector), or unset EMBEDDINGS_MODEL")
}

// embeddedAccess says who else can reach the embedded database: it
// listens on no TCP port, its socket is in DATA_DIR, closed to others,
// and every login needs the password membot keeps there.
func embeddedAccess(ctx context.Context, conn *pgx.Conn, dir string) Line {
	var listen, socketPerm string
	if err := conn.QueryRow(ctx, "SELECT current_setting('listen_addresses'), current_setting('unix_socket_permissions')").Scan(&listen, &socketPerm); err != nil {
		return failed("database access", "cannot tell: "+err.Error(), "")
	}
	var trusting int
	trustErr := conn.QueryRow(ctx, "SELECT count(*) FROM pg_hba_file_rules WHERE auth_method IN ('trust', 'peer', 'ident')").Scan(&trusting)
	info, err := os.Stat(dir)
	var problems []string
	if err != nil {
		problems = append(problems, err.Error())
	} else if perm := info.Mode().Perm(); perm&0o077 != 0 {
		problems = append(problems, fmt.Sprintf("DATA_DIR is open to others (%04o)", perm))
	}
	if listen != "" {
		problems = append(problems, "it listens on TCP at "+listen)
	}
	if trustErr == nil && trusting > 0 {
		problems = append(problems, "pg_hba.conf lets some logins in without the password")
	}
	if len(problems) > 0 {
		return failed("database access", strings.Join(problems, "; "),
			"chmod 700 "+dir+"; membot writes listen_addresses and pg_hba.conf at each start: restart it")
	}
	return ok("database access", "only this account: no TCP port, the socket in DATA_DIR (%04o), a password for every login", info.Mode().Perm())
}
