-- change_email.sql - change a player's e-mail address.
--
-- What it does: sets the address every reply and report for the empire goes
-- to. Mail already queued keeps its old address; the next mail goes to the
-- new one. An address must look like name@domain and may play only one
-- empire per game (both are checked).
--
-- Change: the game 'spring26', the empire 'RIG' and the new address.
-- Run:    turnproc sql spring26 deploy/admin/change_email.sql --dry-run

UPDATE empires
SET email = 'ann.new@example.org'
WHERE code = 'RIG'
  AND game_id = (SELECT id FROM games WHERE name = 'spring26');

SELECT code, name, email FROM gm_empires WHERE game = 'spring26' AND code = 'RIG';
