-- hand_system.sql - hand a system to another empire.
--
-- What it does: makes another empire the owner of a system, with the
-- population and industry in it. Ships there go over to the new owner, since
-- ships only stand in their owner's systems (to make them vanish instead, use
-- the DELETE in the comment below in place of statement 3). If the system was
-- the old owner's BASE or HOME that is cleared; the player names a new one by
-- order. The system's stance goes back to DEFEND.
--
-- Change: the game 'spring26', the system 103 and the new owner 'VEG'
--         (each in several places: search and replace).
-- Run:    turnproc sql spring26 deploy/admin/hand_system.sql --dry-run

-- 1. and 2. The old owner's BASE / HOME may not name a system it no longer owns.
UPDATE empires SET base = NULL
WHERE base = 103 AND code <> 'VEG' AND game_id = (SELECT id FROM games WHERE name = 'spring26');
UPDATE empires SET home = NULL
WHERE home = 103 AND code <> 'VEG' AND game_id = (SELECT id FROM games WHERE name = 'spring26');

-- 3. The ships there change hands with the system.
UPDATE forces
SET empire_id = (SELECT empire_id FROM gm_empires WHERE game = 'spring26' AND code = 'VEG')
WHERE system_id = (SELECT system_id FROM gm_systems WHERE game = 'spring26' AND code = 103);
-- DELETE FROM forces WHERE system_id = (SELECT system_id FROM gm_systems WHERE game = 'spring26' AND code = 103);

-- 4. The system itself.
UPDATE systems
SET owner_id = (SELECT empire_id FROM gm_empires WHERE game = 'spring26' AND code = 'VEG'),
    ever_owned = TRUE, stance = 'DEFEND', stance_target = NULL
WHERE id = (SELECT system_id FROM gm_systems WHERE game = 'spring26' AND code = 103);

SELECT code, owner, pop, industry, cruisers, fighters, colony_ships FROM gm_systems
WHERE game = 'spring26' AND code = 103;
