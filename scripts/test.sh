#!/usr/bin/env bash
# Runs every test against a real PostgreSQL, which it finds by itself:
#   1. TEST_DATABASE_URL, when set;
#   2. else a server on 127.0.0.1:5432 that lets user postgres in;
#   3. else a throwaway cluster started from the PostgreSQL binaries on this
#      machine (Debian's postgresql package is installed when there are none),
#      stopped and deleted when the tests end.
# For that server it installs pgvector, Debian's postgresql-NN-pgvector (NN is
# the server's major version), so the template database gets the `vector`
# extension (migration 00019); with CI=true a server without it fails the tests.
# The binaries are needed either way: internal/embeddedpg and the binary's
# start without DATABASE_URL run a PostgreSQL of their own from them.
# Extra arguments go to `go test` (e.g. scripts/test.sh -run TestName ./memory).
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "test.sh: $*" >&2; }

can_connect() {
	if command -v psql >/dev/null; then
		psql "$1" -Atqc 'select 1' >/dev/null 2>&1
	else
		(exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null
	fi
}

# postgres_bindir prints the newest PostgreSQL bin directory, installing
# Debian's postgresql package when there is none.
postgres_bindir() {
	local bindir
	bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
	if [ -z "$bindir" ] && command -v initdb >/dev/null; then
		bindir=$(dirname "$(command -v initdb)")
	fi
	if [ -z "$bindir" ]; then
		log "no PostgreSQL binaries; installing Debian's postgresql package"
		local sudo=""
		[ "$(id -u)" = 0 ] || sudo="sudo"
		$sudo apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
		bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
	fi
	echo "$bindir"
}

start_throwaway_cluster() {
	local bindir
	bindir=$(postgres_bindir)
	local dir port as=()
	dir=$(mktemp -d /tmp/membot-pg.XXXXXX)
	port=$((20000 + RANDOM % 20000))
	if [ "$(id -u)" = 0 ]; then # initdb refuses to run as root
		id postgres >/dev/null 2>&1 || useradd --system postgres
		chown postgres "$dir"
		as=(runuser -u postgres --)
	fi
	"${as[@]}" "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >/dev/null
	"${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
		-o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" start >/dev/null
	trap '"${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1; rm -rf "$dir"' EXIT
	export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
	log "started a throwaway PostgreSQL at 127.0.0.1:$port"
}

if [ -z "${TEST_DATABASE_URL:-}" ]; then
	local_url="postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	if can_connect "$local_url"; then
		export TEST_DATABASE_URL="$local_url"
		log "using the PostgreSQL server at 127.0.0.1:5432"
	else
		start_throwaway_cluster
	fi
fi

# install_pgvector installs pgvector for the server at TEST_DATABASE_URL when
# the server does not offer the extension yet: Debian's postgresql-NN-pgvector
# where the apt sources have it, else built from Debian's pgvector source
# package against postgresql-server-dev-NN (bookworm, with PostgreSQL 15, has
# no binary package; trixie's source builds against 15). Only a server on this
# machine can get it; a remote one is left as it is. With CI=true a server
# still without it fails the run.
install_pgvector() {
	command -v psql >/dev/null || return 0
	local major pkg sudo=""
	has_vector && return 0
	major=$(psql "$TEST_DATABASE_URL" -Atqc "show server_version_num" | cut -c1-2)
	pkg="postgresql-$major-pgvector"
	[ "$(id -u)" = 0 ] || sudo="sudo"
	log "the server has no pgvector; installing $pkg"
	$sudo apt-get update -qq || true
	if apt-cache show "$pkg" >/dev/null 2>&1; then
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$pkg" >/dev/null || log "could not install $pkg"
	else
		build_pgvector "$major" || log "could not build pgvector from Debian's source package"
	fi
	has_vector && return 0
	if [ "${CI:-}" = true ]; then
		log "pgvector could not be installed for PostgreSQL $major (CI=true, so this fails)"
		exit 1
	fi
	log "WARNING: no pgvector for PostgreSQL $major: semantic recall is NOT tested in this run"
	export MEMBOT_TEST_PGVECTOR=unavailable
}

has_vector() {
	[ "$(psql "$TEST_DATABASE_URL" -Atqc "select count(*) from pg_available_extensions where name = 'vector'" 2>/dev/null || echo 0)" != 0 ]
}

# build_pgvector MAJOR builds and installs pgvector from Debian's source
# package (trixie's deb-src, added as a source-only list) for PostgreSQL MAJOR.
build_pgvector() {
	local major=$1 dir sudo=""
	[ "$(id -u)" = 0 ] || sudo="sudo"
	log "no binary package: building pgvector from Debian's source package"
	local list=/etc/apt/sources.list.d/membot-pgvector-src.sources
	if [ ! -f "$list" ]; then
		printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' |
			$sudo tee "$list" >/dev/null
		$sudo apt-get update -qq || return 1
	fi
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "postgresql-server-dev-$major" make gcc >/dev/null || return 1
	dir=$(mktemp -d /tmp/membot-pgvector.XXXXXX)
	(
		cd "$dir" &&
			apt-get source --download-only -qq pgvector >/dev/null 2>&1 &&
			tar xzf pgvector_*.orig.tar.gz &&
			cd pgvector-*/ &&
			make -s PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config" OPTFLAGS="" >/dev/null 2>&1 &&
			$sudo make -s install PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config" >/dev/null 2>&1
	)
	local rc=$?
	rm -rf "$dir"
	return $rc
}
install_pgvector
postgres_bindir >/dev/null # for the embedded PostgreSQL's tests

# With CI=true a missing database, or a server without pgvector that apt could
# have installed, fails the tests instead of skipping them (internal/testing/pgtest).
go test -race -count=1 -timeout 20m "${@:-./...}"
