-- give_bp.sql - give an empire build points (BP), e.g. to make up for a host error.
--
-- What it does: adds BP to the empire's balance, the BP it spends on the turn
-- now collecting orders (what is left at the end of the turn becomes ships at
-- its BASE and HOME). To add to its savings instead, change `balance` to
-- `treasury` in both places.
--
-- Change: the game 'spring26' (2 places), the empire 'RIG' (2 places) and the
--         amount 50.
-- Run:    turnproc sql spring26 deploy/admin/give_bp.sql --dry-run
--         then the same without --dry-run.

UPDATE empires
SET balance = balance + 50
WHERE code = 'RIG'
  AND game_id = (SELECT id FROM games WHERE name = 'spring26');

-- Printed by turnproc sql, to confirm the new balance.
SELECT code, name, balance, treasury FROM gm_empires WHERE game = 'spring26' AND code = 'RIG';
