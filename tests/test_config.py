"""Configuration: defaults with no file, the file, environment overrides, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from turnproc.config import ConfigError, load_config


def test_no_config_at_all_is_the_embedded_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config(None, env={})
    assert config.database_url == "sqlite:///turnproc.db"
    assert config.transport == "maildir"
    assert config.maildir_in == Path("mail/in")
    assert config.maildir_out == Path("mail/out")


def test_turnproc_toml_in_the_working_directory_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "turnproc.toml").write_text('database_url = "sqlite:///x.db"\n')
    assert load_config(None, env={}).database_url == "sqlite:///x.db"


def test_env_names_the_file_and_overrides_the_url(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(
        'database_url = "sqlite:///file.db"\ntransport = "imap"\n'
        '[imap]\nhost = "mail.example.org"\nport = 993\nuser = "turns"\npassword_file = "secret"\n'
    )
    (tmp_path / "secret").write_text("hunter2\n")
    config = load_config(None, env={"TURNPROC_CONFIG": str(cfg), "TURNPROC_DATABASE_URL": "sqlite:///env.db"})
    assert config.database_url == "sqlite:///env.db"
    assert config.imap.host == "mail.example.org"
    assert config.imap.password == "hunter2"
    assert config.transport == "imap"


def test_password_from_the_environment(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text('[smtp]\nhost = "smtp.example.org"\n')
    config = load_config(cfg, env={"TURNPROC_SMTP_PASSWORD": "s3cret"})
    assert config.smtp.password == "s3cret"


@pytest.mark.parametrize(
    "content, words",
    [
        ("databse_url = 'x'\n", "unknown key 'databse_url'"),
        ("[imap]\nprot = 1\n", "unknown key 'prot'"),
        ("[imap]\nport = 'high'\n", "imap.port: expected a whole number"),
        ("[smtp]\nsecurity = 'ssl'\n", "'ssl' is not tls, starttls or plain"),
        ("transport = 'pigeon'\n", "transport 'pigeon'"),
        ("database_url = \n", "line 1"),
        ("site_url = 'docs/rules.md'\n", "site_url 'docs/rules.md' is not an address"),
        ("site_url = 3\n", "site_url 3 is not an address"),
    ],
)
def test_bad_config_names_the_key(tmp_path: Path, content: str, words: str) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(content)
    with pytest.raises(ConfigError, match=None) as info:
        load_config(cfg, env={})
    assert words in str(info.value)


def test_missing_config_file_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.toml", env={})


def test_the_intake_limits_are_set_in_the_config_file(tmp_path: Path) -> None:
    """docs/gm-handbook.md names these keys; a config file sets them."""
    path = tmp_path / "turnproc.toml"
    path.write_text(
        'stranger_replies_per_hour = 0\nset_aside_after = 5\npassword_tag_key_file = "keys/tag.key"\n'
    )
    config = load_config(str(path))
    assert (config.stranger_replies_per_hour, config.set_aside_after) == (0, 5)
    assert config.password_tag_key_file == tmp_path / "keys" / "tag.key"
    path.write_text("set_aside_after = 0\n")
    with pytest.raises(ConfigError, match="set_aside_after 0 is not a whole number from 1 to 100"):
        load_config(str(path))


def test_smtp_connections_is_set_in_the_config_file_and_checked(tmp_path: Path) -> None:
    """docs/gm-handbook.md, `[smtp]` `connections`: 3 unless set, 1 to 20."""
    path = tmp_path / "turnproc.toml"
    path.write_text("")
    assert load_config(str(path)).smtp.connections == 3
    path.write_text("[smtp]\nconnections = 1\n")
    assert load_config(str(path)).smtp.connections == 1
    for bad in ("0", "21", "true", '"2"'):
        path.write_text(f"[smtp]\nconnections = {bad}\n")
        with pytest.raises(ConfigError, match="connections"):
            load_config(str(path))


def test_site_url_is_read(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text("site_url = 'https://example.org/starchase/'\n")
    assert load_config(cfg, env={}).site_url == "https://example.org/starchase/"


def test_the_retired_lockout_setting_is_accepted_and_ignored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A config from before the per-sender lockout was dropped still loads
    (docs/gm-handbook.md, "Passwords and guessing"), with a warning."""
    path = tmp_path / "turnproc.toml"
    path.write_text("password_failures_per_hour = 3\n")
    config = load_config(str(path))
    assert not hasattr(config, "password_failures_per_hour")
    assert "password_failures_per_hour is no longer used" in caplog.text
