-- The settings a batch (one implicit transaction) of any of memory's
-- repositories may begin with.

-- name: asyncCommit
-- asyncCommit lets the transaction it begins commit without waiting for
-- the disk. StartTurn uses it: were PostgreSQL to crash before its commit
-- reached the disk, the turn would simply start again, since the update
-- stays claimed and unfinished; and the next commit that does wait (the
-- update's completion, or any other session's) flushes everything written
-- before it. It saves a disk flush on the
-- path of every reply (the final answer saves another: Step.FlushLater).
SELECT set_config('synchronous_commit', 'off', true)

-- name: genericPlans
-- genericPlans makes the statements after it in its transaction (a
-- batch is one) run their prepared generic plans. PostgreSQL otherwise
-- plans some of them again at every execution, their generic plan's
-- estimate being above the plans made for each execution's values:
-- recall statements (1.5 ms, more than the search itself), StartTurn's history
-- query (0.2 ms), saveUpdate (0.15 ms).
--
-- A generic plan is made once, at a statement's first run on a connection
-- (and again when the tables' statistics change), and then kept: for a new
-- bot, or membench's fresh database, while the tables are all but empty,
-- when reading a whole table costs less than one index lookup. Such a
-- plan read the whole messages table twice in every auto-recall, for as
-- long as the plan lived. So these statements are planned without
-- sequential scans: each of them finds its rows through an index, as the
-- plan tests check on a new database too (TestTurnPlansOnANewDatabase).
-- And without JIT, whatever DATABASE_URL says: a sequential scan left
-- where nothing else can read a table is costed at 10^10, which would
-- make PostgreSQL compile the statement (12-73 ms) for a lookup of 0.1 ms.
SELECT set_config('plan_cache_mode', 'force_generic_plan', true), set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true)
