-- extend_deadline.sql - move the deadline of the turn now collecting orders.
--
-- What it does: sets a one-off deadline for the current turn. It replaces the
-- schedule's next deadline: the worker runs the turn then, acknowledgements
-- and reports show it, and running the turn clears it so the game's schedule
-- applies again from the next turn.
--
-- Change: the game 'spring26' and the new deadline, written in UTC as
--         'YYYY-MM-DD HH:MM:SS+00' (the +00 matters on PostgreSQL).
-- Run:    turnproc sql spring26 deploy/admin/extend_deadline.sql --dry-run
-- Undo:   set deadline_override = NULL the same way.

UPDATE games
SET deadline_override = '2026-12-05 20:00:00+00'
WHERE name = 'spring26';

SELECT name, turn, schedule, timezone, deadline_override FROM games WHERE name = 'spring26';
