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
-- estimate being above the plans made for each execution's values (the
-- recall statements, StartTurn's history, saveUpdate), which costs more
-- than running them.
--
-- A generic plan is made once per connection and kept; made while a new
-- bot's tables are all but empty, it would read whole tables for as long
-- as it lives. So these statements are planned without sequential scans
-- (each finds its rows through an index, as TestTurnPlansOnANewDatabase
-- checks), and without JIT, which a sequential scan's disabled cost would
-- otherwise trigger for a lookup.
SELECT set_config('plan_cache_mode', 'force_generic_plan', true), set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true)
