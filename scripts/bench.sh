#!/usr/bin/env bash
# Runs every measurement BENCHMARKS.md reports, RUNS times each, and prints
# the median (and the range) of each number. Raw outputs go to $OUT.
#
#   scripts/bench.sh                                  # a fresh database per run
#   BIG_DB=postgres://.../membench_10m scripts/bench.sh   # also the 10M-message runs
#
# Needs Go, a PostgreSQL that lets user postgres in on 127.0.0.1:5432 (or
# DB=URL), and for the machine's floors pgbench and pg_test_fsync (found on
# PATH or in /usr/lib/postgresql/*/bin). It takes about ten minutes; run it
# on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-5}
DB=${DB:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
OUT=${OUT:-$(mktemp -d /tmp/membench.XXXXXX)}
mkdir -p "$OUT"
PATH=$PATH:$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)

go build -o "$OUT/membench" ./cmd/membench

# median FILE... : "median (min–max)" of one number per file, picked by the
# awk program in $PICK.
median() {
	for f in "$@"; do awk "$PICK" "$f"; done | sort -g |
		awk '{v[NR]=$1} END {printf "%s (%s–%s)", v[int((NR+1)/2)], v[1], v[NR]}'
}

# load NAME ARGS... : RUNS membench runs, and their medians.
load() {
	local name=$1
	shift
	for i in $(seq "$RUNS"); do
		"$OUT/membench" -db "$DB" "$@" >"$OUT/$name.$i.txt" 2>"$OUT/$name.$i.log" ||
			{ echo "membench $* failed: see $OUT/$name.$i.txt"; exit 1; }
	done
	local files=("$OUT/$name".*.txt)
	echo "== membench $* ($RUNS runs: median (min–max))"
	PICK='/^throughput/ {print $2}' ; echo "throughput turns/s      $(median "${files[@]}")"
	PICK='/^added latency/ {print $6}'; echo "latency p50 ms          $(median "${files[@]}")"
	PICK='/^added latency/ {print $9}'; echo "latency p90 ms          $(median "${files[@]}")"
	PICK='/^added latency/ {print $12}'; echo "latency p99 ms          $(median "${files[@]}")"
	PICK='/^bot CPU/ {print $5}'     ; echo "bot CPU ms/turn         $(median "${files[@]}")"
	PICK='/^PostgreSQL CPU/ {print $5}'; echo "PostgreSQL CPU ms/turn  $(median "${files[@]}")"
	PICK='/^membench CPU/ {print $5}' ; echo "membench CPU ms/turn    $(median "${files[@]}")"
	PICK='/^bot peak RSS/ {print $4}' ; echo "bot peak RSS MB         $(median "${files[@]}")"
	PICK='/^DB statements/ {print $5}'; echo "statements/turn         $(median "${files[@]}")"
	PICK='/^DB round trips/ {print $6}'; echo "round trips/turn        $(median "${files[@]}")"
	grep -h '^replies' "${files[@]}" | sort | uniq -c
}

echo "== machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(psql "$DB" -Atc 'SELECT version()' | cut -d, -f1)"
psql "$DB" -Atc "SELECT 'shared_buffers ' || current_setting('shared_buffers') || ', synchronous_commit ' || current_setting('synchronous_commit')"
if command -v pg_test_fsync >/dev/null; then
	data=$(psql "$DB" -Atc 'SHOW data_directory' 2>/dev/null || true)
	dir=$(dirname "${data:-$OUT/x}") # the disk PostgreSQL writes to, when we may
	[ -w "$dir" ] || dir=$OUT
	pg_test_fsync -s 2 -f "$dir/membench_fsync.test" | awk '/one 8kB write/ {on=1} on && $1 == "fdatasync" && !done {print "fdatasync of one 8kB write: " $(NF-1) " µs"; done=1}'
	rm -f "$dir/membench_fsync.test"
fi
if command -v pgbench >/dev/null; then
	psql "$DB" -qc 'DROP DATABASE IF EXISTS membench_floor' -c 'CREATE DATABASE membench_floor' 2>/dev/null
	floor=${DB/\/postgres\?/\/membench_floor?}
	psql "$floor" -qc 'CREATE TABLE t (id bigserial PRIMARY KEY, v text)'
	echo "INSERT INTO t (v) VALUES ('hello');" >"$OUT/insert.sql"
	echo "SELECT 1;" >"$OUT/select.sql"
	echo "committed one-row INSERT: $(pgbench -n -c1 -T5 -M prepared -f "$OUT/insert.sql" "$floor" | awk '/latency average/ {print $4 " ms"}')"
	echo "the same, synchronous_commit off: $(PGOPTIONS='-c synchronous_commit=off' pgbench -n -c1 -T5 -M prepared -f "$OUT/insert.sql" "$floor" | awk '/latency average/ {print $4 " ms"}')"
	echo "SELECT 1: $(pgbench -n -c1 -T5 -M prepared -f "$OUT/select.sql" "$floor" | awk '/latency average/ {print $4 " ms"}')"
	psql "$DB" -qc 'DROP DATABASE membench_floor'
fi

load one -chats 1 -messages 200
load fifty -chats 50 -messages 40
RUNS=1 load thousand -chats 1000 -messages 10

echo "== memory benchmarks, a fresh database of 10,000 messages"
go test -run '^$' -bench 'LoadLast30|StartTurn|AppendMessage|SearchHistory' -benchtime 2000x -count "$RUNS" ./memory | grep '^Benchmark' | tee "$OUT/memory10k.txt"
go test -run '^$' -bench 'ResetConversation100k' -benchtime 3x -count 1 ./memory | grep '^Benchmark' | tee "$OUT/reset.txt"

if [ -n "${BIG_DB:-}" ]; then
	echo "== memory benchmarks, $BIG_DB"
	MEMBENCH_DB=$BIG_DB go test -run '^$' -bench 'LoadLast30' -benchtime 2000x -count "$RUNS" ./memory | grep '^Benchmark' | tee "$OUT/memorybig.txt"
	# a search of the longest conversations takes a quarter of a second here
	MEMBENCH_DB=$BIG_DB go test -run '^$' -bench 'SearchHistory' -benchtime 50x -count 2 ./memory | grep '^Benchmark' | tee -a "$OUT/memorybig.txt"
	DB=$BIG_DB load big_one -prefilled -chats 1 -messages 200
	DB=$BIG_DB load big_fifty -prefilled -chats 50 -messages 40
fi
echo "raw outputs: $OUT"
