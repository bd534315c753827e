#!/usr/bin/env bash
# Runs every test against a real PostgreSQL. It changes nothing outside the
# clone and the system temp folder: it installs no package, adds no apt
# source, and puts nothing into the machine's PostgreSQL. The server is, in
# this order:
#   1. TEST_DATABASE_URL, when set;
#   2. a throwaway cluster from .cache/pgvector, this machine's PostgreSQL
#      with pgvector added, in a folder of the clone (scripts/pgvector.sh
#      builds it, here too when the tools it needs are installed);
#   3. a server on 127.0.0.1:5432 that lets user postgres in;
#   4. a throwaway cluster from the machine's PostgreSQL binaries;
#   5. none: the database tests skip (with CI=true, the run fails).
# A throwaway cluster lives in a temp folder on a random port and is
# deleted when the tests end. Without pgvector the vector tests skip, named
# in one warning line that says how to get it; with CI=true that fails.
# Extra arguments go to `go test` (e.g. scripts/test.sh -run TestName ./memory).
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "test.sh: $*" >&2; }
ci() { [ "${CI:-}" = true ]; }

pgvector_dir=${PGVECTOR_DIR:-$PWD/.cache/pgvector}
cluster_dir=""

can_connect() {
	if command -v psql >/dev/null; then
		psql "$1" -Atqc 'select 1' >/dev/null 2>&1
	else
		(exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null
	fi
}

# machine_bindir prints the newest PostgreSQL bin directory of the machine.
machine_bindir() {
	local bindir
	bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
	if [ -z "$bindir" ] && command -v initdb >/dev/null; then
		bindir=$(dirname "$(command -v initdb)")
	fi
	echo "$bindir"
}

# start_cluster BINDIR starts a throwaway cluster from BINDIR's initdb and
# pg_ctl and points TEST_DATABASE_URL at it. initdb refuses to run as root:
# then the cluster runs as the user postgres (or nobody), which owns only
# the temp folder.
start_cluster() {
	local bindir=$1 port as=()
	cluster_dir=$(mktemp -d "${TMPDIR:-/tmp}/membot-pg.XXXXXX")
	port=$((20000 + RANDOM % 20000))
	if [ "$(id -u)" = 0 ]; then
		local user=postgres
		id "$user" >/dev/null 2>&1 || user=nobody
		chown "$user" "$cluster_dir"
		as=(runuser -u "$user" --)
	fi
	local stop
	stop="$(printf '%q ' "${as[@]}" "$bindir/pg_ctl") -D $(printf %q "$cluster_dir/data") -m immediate stop >/dev/null 2>&1; rm -rf $(printf %q "$cluster_dir")"
	if ! "${as[@]}" "$bindir/initdb" -D "$cluster_dir/data" -U postgres --auth=trust -E UTF8 >"$cluster_dir/initdb.log" 2>&1 ||
		! "${as[@]}" "$bindir/pg_ctl" -D "$cluster_dir/data" -l "$cluster_dir/log" -w -o \
			"-p $port -k $cluster_dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" start >/dev/null; then
		log "could not start a cluster from $bindir: $(tail -qn 3 "$cluster_dir/initdb.log" "$cluster_dir/log" 2>/dev/null | tr '\n' ' ')"
		eval "$stop"
		return 1
	fi
	trap "$stop" EXIT
	export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
	log "started a throwaway PostgreSQL from $bindir at 127.0.0.1:$port"
}

has_vector() {
	[ "$(psql "$TEST_DATABASE_URL" -Atqc "select count(*) from pg_available_extensions where name = 'vector'" 2>/dev/null || echo 0)" != 0 ]
}

# vector_tests names the tests that need pgvector: those that call
# pgtest.RequireVectors, or a helper of their file that does.
vector_tests() {
	grep -rl --include='*_test.go' 'pgtest.RequireVectors(' . | while read -r file; do
		awk '
			/^func / { name = $0; sub(/^func (\([^)]*\) )?/, "", name); sub(/\(.*/, "", name) }
			FNR == NR && /pgtest\.RequireVectors\(/ { needs[name] = 1 }
			FNR != NR && name ~ /^Test/ { for (h in needs) if (h == name || index($0, h "(")) { print name; break } }
		' "$file" "$file"
	done | sort -u | paste -sd, - | sed 's/,/, /g'
}

# The folder with pgvector, built when it is missing and the tools are here.
# Missing tools (exit 2) are told by the warning below, with how to get them.
if [ -z "${TEST_DATABASE_URL:-}" ] && [ ! -f "$pgvector_dir/READY" ]; then
	rc=0
	why=$(scripts/pgvector.sh 2>&1 >/dev/null) || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 2 ] || log "could not build $pgvector_dir: $(echo "$why" | tail -1)"
fi

if [ -n "${TEST_DATABASE_URL:-}" ]; then
	log "using TEST_DATABASE_URL"
elif [ -f "$pgvector_dir/READY" ] &&
	start_cluster "$pgvector_dir/usr/lib/postgresql/$(cat "$pgvector_dir/READY")/bin"; then
	:
elif can_connect "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"; then
	export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	log "using the PostgreSQL server at 127.0.0.1:5432"
elif [ -n "$(machine_bindir)" ] && start_cluster "$(machine_bindir)"; then
	:
elif ci; then
	log "no PostgreSQL: none at TEST_DATABASE_URL or 127.0.0.1:5432, and no binaries (CI=true, so this fails)"
	exit 1
else
	log "WARNING: no PostgreSQL, so the database tests are skipped: set TEST_DATABASE_URL, or apt-get install postgresql"
fi

if [ -n "${TEST_DATABASE_URL:-}" ] && command -v psql >/dev/null && ! has_vector; then
	how="scripts/pgvector.sh builds it into $pgvector_dir from the Debian packages postgresql-server-dev-NN, gcc and make (see README)"
	if ci; then
		log "the server has no pgvector (CI=true, so this fails): $how"
		exit 1
	fi
	log "WARNING: no pgvector, so these tests are skipped: $(vector_tests). To run them: $how"
fi

go test -race -count=1 -timeout 20m "${@:-./...}"
