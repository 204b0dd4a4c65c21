"""WEBAPP_URL and WEBAPP_NAME switch the Telegram Mini App on together; each is checked like WEBHOOK_URL,
by name, before anything is served."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.runtime.config import BotConfig
from cli.main import config_problems, main
from tests.bot.test_config import bare_env, config  # noqa: F401  (the fixture)

APP = {"telegram_token": "1:x", "webapp_url": "https://durak.example.net/app", "webapp_name": "table"}


def test_the_app_is_on_with_both_settings_beside_a_telegram_token() -> None:
    assert config(**APP).webapp_on
    assert not config(**{**APP, "webapp_name": None}).webapp_on
    assert not config(**{**APP, "webapp_url": None}).webapp_on
    assert not config(**{**APP, "telegram_token": None}).webapp_on


def test_blank_app_settings_in_a_copied_env_file_mean_off() -> None:
    read = config(telegram_token="1:x", webapp_url=" ", webapp_name="")
    assert read.webapp_url is None and read.webapp_name is None and not read.webapp_on
    assert config_problems(read) == []


@pytest.mark.parametrize("name", ["ab", "a" * 31, "my-table", "table/x", "стол"])
def test_an_app_short_name_botfather_would_not_take_is_refused_by_name(name: str) -> None:
    with pytest.raises(ValidationError, match="WEBAPP_NAME"):
        config(**{**APP, "webapp_name": name})


@pytest.mark.parametrize("url", ["http://durak.example.net/app", "durak.example.net", "https://"])
def test_a_webapp_url_that_is_not_https_is_a_problem(url: str) -> None:
    assert any(
        "WEBAPP_URL must start with https://" in p
        for p in config_problems(config(**{**APP, "webapp_url": url}))
    )


@pytest.mark.parametrize("missing", ["webapp_url", "webapp_name"])
def test_one_app_setting_without_the_other_is_a_problem(missing: str) -> None:
    problems = config_problems(config(**{**APP, missing: None}))
    assert any("both WEBAPP_URL and WEBAPP_NAME" in problem for problem in problems)


def test_the_app_without_a_telegram_token_is_a_problem() -> None:
    problems = config_problems(config(**{**APP, "telegram_token": None}))
    assert any("set TELEGRAM_TOKEN" in problem for problem in problems)


def test_durak_bot_run_refuses_an_http_webapp_url_before_serving(
    bare_env: pytest.MonkeyPatch,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, value in {
        "TELEGRAM_TOKEN": "1:x",
        "WEBAPP_URL": "http://x.example/app",
        "WEBAPP_NAME": "table",
    }.items():
        bare_env.setenv(name, value)
    assert main(["run"]) == 2
    assert "WEBAPP_URL must start with https://" in capsys.readouterr().err


def test_both_settings_read_from_the_environment(bare_env: pytest.MonkeyPatch) -> None:  # noqa: F811
    bare_env.setenv("WEBAPP_URL", "https://durak.example.net/app")
    bare_env.setenv("WEBAPP_NAME", "durak_table")
    read = BotConfig()
    assert (read.webapp_url, read.webapp_name) == ("https://durak.example.net/app", "durak_table")


def test_run_check_says_the_mini_app_is_on_and_where(
    bare_env: pytest.MonkeyPatch,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, value in {"TELEGRAM_TOKEN": "1:x", "WEBAPP_URL": "https://x.example/app/", "WEBAPP_NAME": "table",
                        "DATA_DIR": "data"}.items():  # fmt: skip
        bare_env.setenv(name, value)
    assert main(["run", "--check", "--offline"]) == 0
    assert "Telegram Mini App: on, https://x.example/app/ (short name table)" in capsys.readouterr().out
