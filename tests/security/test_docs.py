"""What docs/orders.md, docs/gm-handbook.md and deploy/OPERATIONS.md promise
players, GMs and operators about password guessing: each promise is written
there as quoted here, and names the test that holds it (which must exist)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from turnproc.accounts.passwordkey import KEY_FILE_NAME, TAG_BITS
from turnproc.config import load_config

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

GUESSING = "test_guessing.py::test_a_thousand_forged_guesses_neither_stop_nor_delay_the_owner"
DIGEST = "test_guessing.py::test_the_digest_goes_once_a_day_to_owner_and_gm_never_to_the_sender"
GM_DIGEST = "test_guessing.py::test_the_gm_gets_one_digest_a_day_for_a_flood_over_every_empire"
CHOSEN = "test_guessing.py::test_300_guesses_at_a_chosen_password_cost_scrypt_only_for_tag_matches"
COMMON = "test_chosen_passwords.py::test_a_common_password_is_refused_with_the_reason"
OWN_NAME = "test_chosen_passwords.py::test_a_password_zxcvbn_finds_guessable_is_refused_with_its_words"
COST = "test_chosen_passwords.py::test_the_documented_guessing_cost_is_what_the_numbers_give"
KEY_FILE = "test_password_key.py::test_the_key_file_is_made_private_beside_the_data_and_never_replaced"
STATE = "test_password_key.py::test_on_a_database_server_the_key_is_in_the_state_folder"
LOST = "test_password_key.py::test_a_lost_key_loses_nothing_the_next_correct_password_tags_again"
WELCOME = "test_password_key.py::test_a_queued_welcome_holds_no_password_and_a_sent_one_nothing"
OTHER_KEY = "test_password_key.py::test_a_welcome_sealed_under_another_key_is_not_sent_with_a_wrong_password"
TAG_FILTER = "test_docs.py::test_a_tag_is_twelve_bits"
EXAMPLE = "test_docs.py::test_the_example_config_names_the_key_file_in_the_state_folder"

PROMISES = [
    # docs/orders.md: what a player can rely on.
    ("docs/orders.md", "Nothing from the mail is stored, and it is not answered one by one", GUESSING),
    (
        "docs/orders.md",
        "you (at your **registered address**, never the sender's) and the GM get a summary, at most "
        "one a day for your empire, counting every mail with a wrong or missing password since the last "
        "summary",
        DIGEST,
    ),
    (
        "docs/orders.md",
        "Your own mail with the right password is read in the same poll as always, whatever arrives "
        "with it: no address is ever locked out, and guessing gets nobody in",
        GUESSING,
    ),
    ("docs/orders.md", "Guessing by mail at the most mails a second the host can read", COST),
    (
        "docs/orders.md",
        "a password it expects to find in fewer than 10^12 guesses (`password12`, the common passwords",
        COMMON,
    ),
    (
        "docs/orders.md",
        "your game's or empire's own name) is refused with zxcvbn's reason under **Commands**",
        OWN_NAME,
    ),
    # docs/gm-handbook.md: what a GM can rely on.
    (
        "docs/gm-handbook.md",
        "no address is locked out, and the owner's mail with the right password is read in the same "
        "poll whatever forged mail arrives with it",
        GUESSING,
    ),
    (
        "docs/gm-handbook.md",
        "A generated password (every welcome mail's) is 12 symbols from 31, over 59.4 bits",
        COST,
    ),
    (
        "docs/gm-handbook.md",
        "it must take at least 10^12 guesses by zxcvbn's estimate; `password12` and the common "
        "passwords are refused with zxcvbn's reason",
        COMMON,
    ),
    ("docs/gm-handbook.md", "Guessing by mail at the most mails a second the host can read", COST),
    ("docs/gm-handbook.md", "only one wrong guess in 4,096 costs a hash", CHOSEN),
    (
        "docs/gm-handbook.md",
        "until its password is next checked correct or set, each wrong guess for it costs a full "
        "scrypt check, as it did before, and is still never refused by its sender",
        GUESSING,
    ),
    (
        "docs/gm-handbook.md",
        "at most one a day for each empire, counting every such mail since the last digest and "
        "naming the addresses they claimed. A digest never goes to the sender",
        DIGEST,
    ),
    (
        "docs/gm-handbook.md",
        "You (`gm_address`) get one digest for the game, at most one a day for each game, listing "
        "the empires and the counts",
        GM_DIGEST,
    ),
    ("docs/gm-handbook.md", "a welcome mail still in the outbox holds its password sealed", WELCOME),
    ("docs/gm-handbook.md", "once it is delivered the row keeps neither the password nor the seal", WELCOME),
    ("docs/gm-handbook.md", "an offline search is 4,096 times cheaper", TAG_FILTER),
    (
        "docs/gm-handbook.md",
        "Losing it loses nothing: a new key is made, every tag made with the old one counts as none, "
        "and each empire gets a new tag the next time its password is checked correct",
        LOST,
    ),
    ("docs/gm-handbook.md", "Only welcome mails still waiting in the outbox cannot be built then", OTHER_KEY),
    (
        "docs/gm-handbook.md",
        "made (mode 0600) the first time it is needed: by default `turnproc-password.key` in the "
        "SQLite database's folder",
        KEY_FILE,
    ),
    ("docs/gm-handbook.md", "or for PostgreSQL in the service's state folder (`$STATE_DIRECTORY`", STATE),
    # deploy/OPERATIONS.md: what an operator can rely on.
    (
        "deploy/OPERATIONS.md",
        "The first command that needs it makes it, mode 0600, and logs `made a new password key "
        "file`; it is never overwritten",
        KEY_FILE,
    ),
    (
        "deploy/OPERATIONS.md",
        "the digest of password guesses (or typos) in one game, at most one a day per game; each "
        "owner gets one for the empire, at most one a day. No sender is ever locked out",
        GM_DIGEST,
    ),
    (
        "deploy/OPERATIONS.md",
        "Losing it loses no game data: a new key is made, and each empire gets a new tag when its "
        "password is next checked correct",
        LOST,
    ),
    ("deploy/OPERATIONS.md", "A second worker host needs a copy of the same file", OTHER_KEY),
    ("deploy/OPERATIONS.md", "offline guessing is 4,096 times cheaper", TAG_FILTER),
    ("deploy/OPERATIONS.md", "The example config names it (`password_tag_key_file`)", EXAMPLE),
]


def _flat(path: str) -> str:
    return " ".join((ROOT / path).read_text(encoding="utf-8").split())


@pytest.mark.parametrize("doc, promise, held_by", PROMISES, ids=[f"{d}:{p[:40]}" for d, p, _ in PROMISES])
def test_each_promise_is_written_and_held(doc: str, promise: str, held_by: str) -> None:
    assert promise in _flat(doc), f"{doc} no longer says: {promise}"
    file, name = held_by.split("::")
    tree = ast.parse((HERE / file).read_text(encoding="utf-8"))
    assert name in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}, held_by


def test_a_tag_is_twelve_bits() -> None:
    """Both documents say a tag lets one guess in 4,096 through."""
    assert 2**TAG_BITS == 4096


def test_the_benchmark_the_operations_guide_names_exists() -> None:
    assert "benchmarks/guessing.py" in _flat("deploy/OPERATIONS.md")
    assert (ROOT / "benchmarks" / "guessing.py").is_file()


def test_the_example_config_names_the_key_file_in_the_state_folder(tmp_path: Path) -> None:
    config = tmp_path / "turnproc.toml"
    config.write_text(
        (ROOT / "deploy" / "turnproc.example.toml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (tmp_path / "imap-password").write_text("x\n")
    (tmp_path / "smtp-password").write_text("x\n")
    assert load_config(config, env={}).password_tag_key_file == Path("/var/lib/turnproc") / KEY_FILE_NAME
