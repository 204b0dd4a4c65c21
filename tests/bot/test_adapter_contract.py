"""The adapter contract (bot/adapter.py): each platform is declared once, and what `durak-bot run` needs of
a platform (its entry function, its adapter's platform id, its token setting) follows from that one row."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

from bot.adapter import SERVED_PLATFORMS, ServedPlatform
from bot.config import BotConfig
from bot.main import NO_PLATFORM, REFUSALS, platform_runner
from bot.redact import configured_secrets
from storage import keys

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("core", "storage", "bot", "adapters")
IDS = {keys.TELEGRAM, keys.DISCORD}  # LOCAL is also the name of the terminal's data folder


def spelled_ids(path: Path) -> list[str]:
    """Where a platform id is written out as a string of its own (docstrings and comments do not count)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in IDS
    ]


def test_platform_ids_are_spelled_only_in_storage_keys() -> None:
    sources = (path for layer in LAYERS for path in sorted((ROOT / layer).rglob("*.py")))
    found = [where for path in sources if path != ROOT / "storage" / "keys.py" for where in spelled_ids(path)]
    assert found == []


@pytest.mark.parametrize("platform", SERVED_PLATFORMS, ids=lambda platform: platform.name)
def test_a_served_platform_loads_an_entry_taking_config_service_store_and_deliveries(
    platform: ServedPlatform,
) -> None:
    runner = platform_runner(platform.name)
    assert not isinstance(runner, str), runner
    inspect.signature(runner).bind("config", "service", "store", "deliveries")


@pytest.mark.parametrize("platform", SERVED_PLATFORMS, ids=lambda platform: platform.name)
def test_a_served_platforms_module_holds_an_adapter_claiming_its_id(platform: ServedPlatform) -> None:
    module = importlib.import_module(platform.module)
    adapters = [
        kind
        for kind in vars(module).values()
        if inspect.isclass(kind)
        and getattr(kind, "platform", None) == platform.id
        and hasattr(kind, "deliver_due")
    ]
    assert adapters, f"no class in {platform.module} has platform = {platform.id!r} and deliver_due"
    assert platform.id in keys.PLATFORMS, "a worker claims its deadlines"


def test_served_platforms_have_distinct_ids_and_names() -> None:
    assert (
        len({p.id for p in SERVED_PLATFORMS})
        == len({p.name for p in SERVED_PLATFORMS})
        == len(SERVED_PLATFORMS)
    )


@pytest.mark.parametrize("platform", SERVED_PLATFORMS, ids=lambda platform: platform.name)
def test_a_platforms_token_setting_alone_serves_it_and_is_masked_in_logs(
    platform: ServedPlatform, monkeypatch: pytest.MonkeyPatch
) -> None:
    for served in SERVED_PLATFORMS:
        monkeypatch.delenv(served.token_setting, raising=False)
    monkeypatch.setenv(platform.token_setting, "secret-token-of-" + platform.name)
    config = BotConfig(_env_file=None)  # type: ignore[call-arg]
    assert platform.token(config) == "secret-token-of-" + platform.name
    assert config.platforms == [platform.name]
    assert "secret-token-of-" + platform.name in configured_secrets(config)


@pytest.mark.parametrize("platform", SERVED_PLATFORMS, ids=lambda platform: platform.name)
def test_run_names_a_platforms_token_when_none_is_set_and_when_it_is_refused(
    platform: ServedPlatform,
) -> None:
    assert f"  {platform.token_setting} " in NO_PLATFORM
    assert (
        REFUSALS[platform.refusal]
        == f"{platform.name.capitalize()} refused the token; check {platform.token_setting}"
    )
