-- add_ships.sql - give an empire ships in one of its systems (say, to restore
-- a fleet lost to a host error; see docs/gm-schema.md, "A player says his
-- fleet vanished").
--
-- What it does: adds cruisers, fighters and colony ships to the empire's
-- forces in a system it owns, creating the forces row if there is none. The
-- checks refuse the script if the empire does not own the system.
--
-- Change: the game 'spring26', the empire 'RIG', the system 101 (each in
--         several places: search and replace) and the numbers added:
--         4 cruisers, 0 fighters, 0 colony ships (statement 2).
-- Run:    turnproc sql spring26 deploy/admin/add_ships.sql --dry-run

-- 1. A forces row of zero ships if there is none yet.
INSERT INTO forces (system_id, empire_id, cruisers, fighters, colony_ships)
SELECT s.system_id, e.empire_id, 0, 0, 0
FROM gm_systems s JOIN gm_empires e ON e.game_id = s.game_id
WHERE s.game = 'spring26' AND s.code = 101 AND e.code = 'RIG'
  AND NOT EXISTS (SELECT 1 FROM forces f WHERE f.system_id = s.system_id AND f.empire_id = e.empire_id);

-- 2. The ships.
UPDATE forces
SET cruisers = cruisers + 4, fighters = fighters + 0, colony_ships = colony_ships + 0
WHERE empire_id = (SELECT empire_id FROM gm_empires WHERE game = 'spring26' AND code = 'RIG')
  AND system_id = (SELECT system_id FROM gm_systems WHERE game = 'spring26' AND code = 101);

SELECT code, owner, cruisers, fighters, colony_ships FROM gm_systems WHERE game = 'spring26' AND code = 101;
