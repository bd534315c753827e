#!/usr/bin/env bash
# The layer rules of docs/ARCHITECTURE.md, checked on the import graph.
# Exits 1, naming each offending package and import, when one is broken.
# .ci/run runs it; run it by hand after adding an import across packages.
set -euo pipefail
cd "$(dirname "$0")/.."

mod=$(go list -m)
tg='github.com/go-telegram-bot-api/telegram-bot-api'
oa='github.com/sashabaranov/go-openai'
pgx='github.com/jackc/pgx'
failed=0

# rule PACKAGES DIRECT|ALL REGEX WHY: no package matching PACKAGES (a go list
# pattern) may import anything matching REGEX, directly or (ALL) at all.
rule() {
	local pkgs=$1 depth=$2 forbidden=$3 why=$4 field='.Imports'
	[ "$depth" = ALL ] && field='.Deps'
	local bad
	bad=$(go list -f "{{.ImportPath}}{{range $field}} {{.}}{{end}}" "$pkgs" |
		awk -v re="$forbidden" '{ for (i = 2; i <= NF; i++) if ($i ~ re) print "  " $1 " imports " $i }')
	if [ -n "$bad" ]; then
		echo "layers: $why" >&2
		echo "$bad" >&2
		failed=1
	fi
}

rule "./memory/..." ALL "^($tg|$oa)|^$mod/(agent|bot|cmd)" \
	"memory knows nothing of Telegram, the model or the layers above it"
rule "./memory/pg/..." DIRECT "^$mod/memory" \
	"what memory's repositories share imports none of them"
rule "./memory/queue/..." DIRECT "^$mod/memory$" \
	"the inbox's repository is handed out by memory.Store: it cannot import it"
rule "./memory/jobs/..." DIRECT "^$mod/memory$" \
	"the jobs' repository is handed out by memory.Store: it cannot import it"
rule "./internal/sqlfile/..." DIRECT "^$mod/" "the reader of sql/*.sql files imports none of the program"
rule "./agent/..." DIRECT "^($tg|$pgx)|^$mod/(bot|cmd)" \
	"agent knows nothing of Telegram, writes no SQL of its own, and imports no layer above it"
rule "./agent" DIRECT "^$mod/agent/(tools|mcptools|websearch|memorize)$" \
	"agent runs tools it is given (the built-in ones and the MCP servers' are composed by the wiring) and only wakes the memory work"
rule "./bot/..." DIRECT "^$pgx" "bot never talks to PostgreSQL itself: it goes through memory"
rule "./bot/telegram/..." ALL "^$mod/(memory|agent|bot$|bot/inbox)" \
	"the Telegram client knows nothing of the database, the model or the handler"
rule "./bot/present/..." DIRECT "^$pgx|^$mod/(memory|bot$|bot/inbox|cmd)" \
	"how an answer is shown goes through the Telegram client: no database, no handler, no intake"
rule "./bot/texts/..." DIRECT "^($tg|$oa|$pgx)|^$mod/" "the bot's texts are words and formats: they import none of the program"
rule "./bot/access/..." DIRECT "^($tg|$oa|$pgx)|^$mod/" "the access policy is settings and their rules: it imports none of the program"
rule "./bot/approve/..." DIRECT "^$pgx|^$mod/(bot$|bot/inbox|cmd)" \
	"the approval prompts are the Telegram side of a decision: no database, no handler, no intake"
rule "./bot/choice/..." DIRECT "^$pgx|^$mod/(bot$|bot/inbox|cmd)" \
	"/model's and /mode's lists go through memory and the Telegram types: no handler, no intake"
rule "./bot/facts/..." DIRECT "^($tg|$pgx)|^$mod/(bot$|bot/inbox|cmd)" \
	"/memory's and /forget's logic goes through memory: no Telegram, no database, no handler"
rule "./bot/gate/..." DIRECT "^($tg|$oa|$pgx)|^$mod/(agent|bot$|bot/inbox|cmd)" \
	"the gate decides through the stores and the few Telegram calls it declares: no Telegram library, no database, no handler"
rule "./bot/command/..." DIRECT "^($tg|$oa|$pgx)|^$mod/(agent|bot$|bot/inbox|cmd)" \
	"what a command sees of its update is values and functions: no Telegram library, no model, no handler"
rule "./bot/draw/..." DIRECT "^($tg|$pgx)|^$mod/(bot$|bot/inbox|cmd)" \
	"/image goes through the painter and the Telegram client: no database, no handler, no intake"
rule "./bot/export/..." DIRECT "^($tg|$oa|$pgx)|^$mod/(agent|bot$|bot/inbox|cmd)" \
	"/export and /history read through interfaces they declare: no Telegram library, no model, no handler"
rule "./bot/remind/..." DIRECT "^($tg|$oa|$pgx)|^$mod/(agent|bot$|bot/inbox|cmd)" \
	"reminders and their commands go through memory and the Telegram client: no model, no handler, no intake"
rule "./bot/tasks/..." DIRECT "^($tg|$oa|$pgx)|^$mod/(agent|bot$|bot/inbox|cmd)" \
	"/tasks goes through memory: no Telegram library, no model, no handler"
rule "./bot/tools/..." DIRECT "^($tg|$oa|$pgx)|^$mod/(bot$|bot/inbox|bot/telegram|memory|cmd)" \
	"/tools reads the agent's tools and servers: no Telegram, no database, no handler"
rule "./bot/usage/..." DIRECT "^($tg|$oa|$pgx)|^$mod/(agent|bot$|bot/inbox|bot/telegram|cmd)" \
	"/usage, /stats and /user read through memory: no Telegram, no model, no handler"
rule "./bot/weblink/..." DIRECT "^($tg|$oa|$pgx)|^$mod/(agent|memory|web|bot$|bot/inbox|cmd)" \
	"/web reaches the web pages through an interface: no Telegram library, no database, no web server, no handler"
rule "./bot/stop/..." DIRECT "^($tg|$pgx)|^$mod/(bot|cmd)" \
	"the stop watch asks the inbox through an interface: no Telegram, no database, no handler"
rule "./bot/inbox/..." DIRECT "^$tg|^$mod/(agent|bot$|bot/telegram)" \
	"intake sees Telegram only as raw updates and knows nothing of the handler"
rule "./agent/modes/..." DIRECT "^($tg|$oa|$pgx)|^$mod/" "the modes are settings and their rules: they import none of the program"
rule "./web/..." DIRECT "^($tg|$oa|$pgx)|^$mod/(bot|agent|cmd)" \
	"the web interface reads and changes through memory: no Telegram, no model, no database driver, no bot"
rule "./migrations/..." DIRECT "^$mod/" "migrations import none of the program"

# only PACKAGES (an awk regex on import paths) may import REGEX; go list's
# .Imports leaves out _test.go files, so tests may import anything.
only() {
	local allowed=$1 forbidden=$2 why=$3 bad
	bad=$(go list -f "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}" ./... |
		awk -v ok="$allowed" -v re="$forbidden" '$1 !~ ok { for (i = 2; i <= NF; i++) if ($i ~ re) print "  " $1 " imports " $i }')
	if [ -n "$bad" ]; then
		echo "layers: $why" >&2
		echo "$bad" >&2
		failed=1
	fi
}

only "^$mod/(cmd/membench|internal/testing/)" "^$mod/internal/testing/" \
	"the fakes and the test kit are for _test.go files and cmd/membench, never production code"
only "^$mod/(cmd/|internal/testing/testkit$)" "^$mod/cmd/membot/app$" \
	"the wiring (cmd/membot/app) is imported by the commands and the test kit only"

[ "$failed" = 0 ] && echo "layers: every import follows the layer rules"
exit "$failed"
