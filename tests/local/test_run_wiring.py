"""`durak-bot run` starts every platform whose token is set, in one process, on one service and store, and
names a platform whose code is missing instead of failing with an import traceback."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.runtime.gc_tuning import YOUNG_THRESHOLD
from cli import main as cli
from tests.local import fake_platforms


@pytest.fixture
def bot_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    for name in ("REDIS_URL", "WEBHOOK_URL", "TELEGRAM_TOKEN", "DISCORD_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AI_WORKERS", "1")  # not one per core of the machine running the tests
    thresholds = gc.get_threshold()
    yield tmp_path
    gc.unfreeze()  # `run` tunes the collector for a long-lived process: give the test process its own back
    gc.set_threshold(*thresholds)


def test_both_tokens_start_both_platforms_on_one_service_and_store(
    bot_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TELEGRAM_TOKEN", "123:abc")
    monkeypatch.setenv("DISCORD_TOKEN", "xyz")
    here = "tests.local.fake_platforms"
    monkeypatch.setattr(
        cli, "PLATFORM_MODULES", {"telegram": (here, "run_telegram"), "discord": (here, "run_discord")}
    )
    fake_platforms.started.clear()
    assert cli.main(["run"]) == 0
    names = [name for name, *_ in fake_platforms.started]
    assert sorted(names) == ["discord", "telegram"]
    (_, config, service_a, store_a, routes_a), (_, _, service_b, store_b, routes_b) = fake_platforms.started
    assert service_a is service_b and store_a is store_b
    assert routes_a is routes_b and routes_a.platforms == ["tg"], "one timer route table, built in main()"
    assert gc.get_threshold()[0] == YOUNG_THRESHOLD and gc.get_freeze_count() > 0, "collector tuned"
    assert config.telegram_token == "123:abc" and "123:abc" not in repr(config)


def test_run_decides_ai_in_worker_processes_that_end_with_it(
    bot_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.runtime.ai_pool import AiPool

    monkeypatch.setenv("TELEGRAM_TOKEN", "123:abc")
    monkeypatch.setattr(cli, "PLATFORM_MODULES", {"telegram": ("tests.local.fake_platforms", "run_telegram")})
    fake_platforms.started.clear()
    assert cli.main(["run"]) == 0
    [(_, _, service, _, _)] = fake_platforms.started
    assert isinstance(service.ai, AiPool) and service.ai.workers == 1 and service.hint_limiter is not None
    [worker] = service.ai.worker_pids  # started (and the AI loaded) before serving
    assert worker != os.getpid()
    with pytest.raises(ProcessLookupError):
        os.kill(worker, 0)  # `run` returned only after its worker had exited


def test_a_platform_whose_module_is_missing_is_named(
    bot_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TELEGRAM_TOKEN", "123:abc")
    monkeypatch.setattr(cli, "PLATFORM_MODULES", {"telegram": ("adapters.nowhere.app", "run_telegram")})
    assert cli.main(["run"]) == 2
    assert (
        "Telegram support is missing from this installation: no module adapters.nowhere.app"
        in capsys.readouterr().err
    )


def test_webhook_mode_needs_a_webhook_url(
    bot_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TELEGRAM_TOKEN", "123:abc")
    monkeypatch.setattr(cli, "PLATFORM_MODULES", {"telegram": ("tests.local.fake_platforms", "run_telegram")})
    assert cli.main(["run", "--webhook"]) == 2
    assert "--webhook needs WEBHOOK_URL" in capsys.readouterr().err


def test_blank_tokens_in_a_copied_env_file_count_as_unset(
    bot_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (bot_env / ".env").write_text("TELEGRAM_TOKEN=\nDISCORD_TOKEN=   \n")
    assert cli.main(["run"]) == 2
    assert "Nothing to serve" in capsys.readouterr().err


def test_run_limits_presses_and_commands_per_user(bot_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.runtime.ratelimit import COMMAND_BURST, COMMAND_RATE

    monkeypatch.setenv("TELEGRAM_TOKEN", "123:abc")
    monkeypatch.setattr(cli, "PLATFORM_MODULES", {"telegram": ("tests.local.fake_platforms", "run_telegram")})
    fake_platforms.started.clear()
    assert cli.main(["run"]) == 0
    [(_, _, service, _, _)] = fake_platforms.started
    assert service.limiter is not None
    assert service.commands is not None
    assert (service.commands.rate, service.commands.burst) == (COMMAND_RATE, COMMAND_BURST)


@pytest.mark.parametrize("flag", [["--webhook"], []])
def test_run_webhook_hands_webhook_mode_to_the_platforms_with_the_configuration(
    bot_env: Path, monkeypatch: pytest.MonkeyPatch, flag: list[str]
) -> None:
    monkeypatch.setenv("TELEGRAM_TOKEN", "123:abc")
    monkeypatch.setenv("WEBHOOK_URL", "https://bot.example.org/telegram")
    monkeypatch.setattr(cli, "PLATFORM_MODULES", {"telegram": ("tests.local.fake_platforms", "run_telegram")})
    fake_platforms.started.clear()
    assert cli.main(["run", *flag]) == 0
    [(_, config, _, _, _)] = fake_platforms.started
    assert config.telegram_webhook is bool(flag)
