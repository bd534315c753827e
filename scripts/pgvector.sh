#!/usr/bin/env bash
# Builds pgvector for this machine's PostgreSQL into a folder of the clone,
# .cache/pgvector (PGVECTOR_DIR), and never into the machine's PostgreSQL.
# A PostgreSQL installation is relocatable: its binaries find share/ and lib/
# relative to themselves, so the folder holds a copy of
# /usr/lib/postgresql/NN/{bin,lib} and /usr/share/postgresql/NN with pgvector
# added (make install DESTDIR=folder); scripts/test.sh runs a throwaway
# cluster from it. A folder already built is reused.
#
# pgvector's source is Debian's source package, fetched by apt with a
# private configuration in a temporary folder (trixie's deb-src: bookworm has
# no pgvector), so nothing under /etc/apt or /var/lib/apt changes; the script
# checks that it did not.
#
# Needs what Debian packages from the machine's own sources give (README):
# postgresql, postgresql-server-dev-NN, gcc, make. Without them it
# says what is missing and exits 2. Prints the folder on success.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "pgvector.sh: $*" >&2; }

dest=${PGVECTOR_DIR:-$PWD/.cache/pgvector}
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$bindir" ]; then
	log "no PostgreSQL in /usr/lib/postgresql (apt-get install postgresql)"
	exit 2
fi
major=$(basename "$(dirname "$bindir")")
if [ -f "$dest/READY" ] && [ "$(cat "$dest/READY")" = "$major" ]; then
	echo "$dest"
	exit 0
fi
pg_config=$bindir/pg_config
missing=()
[ -x "$pg_config" ] && [ -f "$("$pg_config" --pgxs 2>/dev/null || echo /nonexistent)" ] || missing+=("postgresql-server-dev-$major")
command -v gcc >/dev/null || missing+=(gcc)
command -v make >/dev/null || missing+=(make)
[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] || missing+=(debian-archive-keyring)
if [ ${#missing[@]} -gt 0 ]; then
	log "cannot build pgvector: missing ${missing[*]} (apt-get install ${missing[*]})"
	exit 2
fi

# machine_apt is a fingerprint of the machine's apt configuration and lists.
machine_apt() { find /etc/apt /var/lib/apt/lists -printf '%p %s %T@\n' 2>/dev/null | sort | md5sum; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/membot-pgvector.XXXXXX")
build=$dest.building
trap 'rm -rf "$tmp" "$build"' EXIT
before=$(machine_apt)

# The private apt: its own source list, lists and cache, all in $tmp.
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/src"
echo 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main' >"$tmp/src.list"
private_apt() {
	apt-get -qq -o Dir::Etc::SourceList="$tmp/src.list" -o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::State::Lists="$tmp/lists" -o Dir::Cache="$tmp/cache" -o APT::Sandbox::User="$(id -un)" "$@"
}
log "fetching pgvector's Debian source package (private apt configuration in $tmp)"
private_apt update >/dev/null
(cd "$tmp/src" && private_apt source --download-only pgvector >/dev/null)
if [ "$(machine_apt)" != "$before" ]; then
	log "BUG: /etc/apt or /var/lib/apt/lists changed while fetching the source"
	exit 1
fi
tar xzf "$tmp"/src/pgvector_*.orig.tar.gz -C "$tmp/src"
src=$(ls -d "$tmp"/src/pgvector-*/ | head -1)

log "building pgvector $(basename "$src") for PostgreSQL $major into $dest"
rm -rf "$build"
mkdir -p "$build/usr/lib/postgresql/$major" "$build/usr/share/postgresql"
cp -a "/usr/lib/postgresql/$major/bin" "/usr/lib/postgresql/$major/lib" "$build/usr/lib/postgresql/$major/"
cp -a "/usr/share/postgresql/$major" "$build/usr/share/postgresql/"
# OPTFLAGS="": no -march=native, so the folder runs on any machine of the arch.
make -s -C "$src" PG_CONFIG="$pg_config" OPTFLAGS="" >/dev/null
make -s -C "$src" install PG_CONFIG="$pg_config" DESTDIR="$build" >/dev/null
test -f "$build/usr/share/postgresql/$major/extension/vector.control"
echo "$major" >"$build/READY"
rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$build" "$dest"
echo "$dest"
