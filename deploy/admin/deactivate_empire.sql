-- deactivate_empire.sql - mark an empire inactive (a player who has left).
--
-- What it does: the empire stays on the map with everything it owns, but it
-- is left out of the "everyone has sent orders" early-run test, the
-- missed-orders guard and reminders. If it sends orders after all, the next
-- turn run makes it active again. Nothing is deleted (deleting an empire would take its ships and its
-- systems' population with it, and the database refuses that).
--
-- Change: the game 'spring26' and the empire 'VEG'.
-- Run:    turnproc sql spring26 deploy/admin/deactivate_empire.sql --dry-run

UPDATE empires
SET active = FALSE
WHERE code = 'VEG'
  AND game_id = (SELECT id FROM games WHERE name = 'spring26');

SELECT code, name, active, missed_turns FROM gm_empires WHERE game = 'spring26' AND code = 'VEG';
