-- move_fleet.sql - move an empire's ships from one of its systems to another.
--
-- What it does: takes cruisers, fighters and colony ships out of one system
-- and puts them into another system the same empire owns. Ships only ever
-- stand in systems their empire owns: `turnproc sql` refuses the script if the
-- destination is not the empire's, and the database refuses it if the source
-- has fewer ships than you move (counts may not go below zero).
--
-- Change: the game 'spring26', the empire 'RIG', the source system 101, the
--         destination system 103 (each in several places: search and
--         replace), and the numbers moved: 3 cruisers, 0 fighters, 0 colony
--         ships (in statements 2 and 3).
-- Run:    turnproc sql spring26 deploy/admin/move_fleet.sql --dry-run
--         and check that statements 2 and 3 each changed 1 row.

-- 1. A forces row (of zero ships) at both ends if there is none yet, so that a
--    source without ships fails the "not negative" check instead of being skipped.
INSERT INTO forces (system_id, empire_id, cruisers, fighters, colony_ships)
SELECT s.system_id, e.empire_id, 0, 0, 0
FROM gm_systems s JOIN gm_empires e ON e.game_id = s.game_id
WHERE s.game = 'spring26' AND s.code IN (101, 103) AND e.code = 'RIG'
  AND NOT EXISTS (SELECT 1 FROM forces f WHERE f.system_id = s.system_id AND f.empire_id = e.empire_id);

-- 2. Out of the source.
UPDATE forces
SET cruisers = cruisers - 3, fighters = fighters - 0, colony_ships = colony_ships - 0
WHERE empire_id = (SELECT empire_id FROM gm_empires WHERE game = 'spring26' AND code = 'RIG')
  AND system_id = (SELECT system_id FROM gm_systems WHERE game = 'spring26' AND code = 101);

-- 3. Into the destination.
UPDATE forces
SET cruisers = cruisers + 3, fighters = fighters + 0, colony_ships = colony_ships + 0
WHERE empire_id = (SELECT empire_id FROM gm_empires WHERE game = 'spring26' AND code = 'RIG')
  AND system_id = (SELECT system_id FROM gm_systems WHERE game = 'spring26' AND code = 103);

SELECT code, owner, cruisers, fighters, colony_ships FROM gm_systems
WHERE game = 'spring26' AND code IN (101, 103) ORDER BY code;
