"""The adapter contract (bot/adapter.py): each platform is declared once, and what `durak-bot run` needs of
a platform (its entry function, its adapter's platform id, its token setting) follows from that one row;
adapters reach the bot only through the modules meant for them, and read stored games only through the
service's read side (`service.queries`, bot/queries.py)."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

from bot import adapter as door
from bot import platforms
from bot.adapter import SERVED_PLATFORMS, ServedPlatform
from bot.runtime.config import BotConfig
from bot.runtime.redact import configured_secrets
from cli.main import NO_PLATFORM, REFUSALS, platform_runner

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("core", "storage", "bot", "adapters", "cli")
IDS = {platforms.TELEGRAM, platforms.DISCORD}  # LOCAL is also the name of the terminal's data folder


def layer_imports(path: Path, layer: str) -> set[str]:
    """The modules of ``layer`` ("bot", "storage") a file imports, at its top, inside functions or for type
    checking alike."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] == layer:
                found.update(imported_module(node.module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == layer)
    return found


def imported_module(package: str, name: str) -> str:
    """``from package import name``: the module ``package.name`` when there is one, else ``package``."""
    inner = ROOT / package.replace(".", "/") / name
    return f"{package}.{name}" if inner.with_suffix(".py").exists() or inner.is_dir() else package


def adapter_sources() -> list[Path]:
    return sorted((ROOT / "adapters").rglob("*.py"))


def imported_outside(layer: str, allowed: set[str]) -> set[str]:
    """ "<adapter file>: <module>" for each module of ``layer`` an adapter imports that is not ``allowed``."""
    return {
        f"{path.relative_to(ROOT)}: {module}"
        for path in adapter_sources()
        for module in layer_imports(path, layer)
        if module not in allowed
    }


def test_adapters_reach_bot_and_storage_through_one_door() -> None:
    """bot/adapter.py lists everything of `bot/` and `storage/` an adapter may use; an adapter imports no
    other module of either (core's vocabulary, cards and actions, it may import)."""
    assert imported_outside("bot", {"bot.adapter"}) | imported_outside("storage", set()) == set()


def names_taken_from_the_door() -> set[str]:
    taken = set()
    for path in [*adapter_sources(), ROOT / "cli" / "main.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "bot.adapter":
                taken.update(alias.name for alias in node.names)
    return taken


# What the door names to state the contract (what a platform provides), rather than for adapters to import.
CONTRACT = {"SERVED_PLATFORMS", "ServedPlatform", "Adapter", "RunPlatform"}


def test_the_door_lists_only_what_adapters_use() -> None:
    unused = set(door.__all__) - names_taken_from_the_door() - CONTRACT
    assert unused == set(), "no longer used: take it out of the door"


def test_the_door_lists_everything_it_opens() -> None:
    assert names_taken_from_the_door() - set(door.__all__) == set()


def named_by_getattr(node: ast.AST) -> bool:
    """``getattr(x, "store")``, ``getattr(x, "redis")``, ``getattr(x, "recent")``: the store taken apart."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "getattr"
        and any(
            isinstance(arg, ast.Constant) and arg.value in ("store", "redis", "recent") for arg in node.args
        )
    )


def store_reaches(path: Path) -> list[str]:
    """Where a file reaches past the service into its store or its decode cache (``service.store``,
    ``self.service.recent``, ``service.queries.store``), or takes the store apart by name
    (`named_by_getattr`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Attribute) and node.attr in ("store", "recent"):
            owner = node.value
            name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", "")
            if name in ("service", "queries"):  # the read side's own store: the store all the same
                found.append(f"{where} {name}.{node.attr}")
        if named_by_getattr(node):
            found.append(f"{where} getattr")
    return found


def test_no_adapter_reads_the_services_store_only_its_read_side() -> None:
    assert [where for path in adapter_sources() for where in store_reaches(path)] == []


# What holds a whole game, every seat's cards in it: an adapter is given a viewer's `Seen` (bot/queries.py)
# and draws from that, so no adapter can show a seat's cards to anyone else (docs/adapters.md).
WHOLE_GAME = {
    ("core", "Game"), ("core.game", "Game"), ("core.view", "build_view"), ("bot.session", "ChatSession"),
    ("bot.game.archive", "first_position"), ("bot.game.archive", "replayed"),
    ("bot.game.archive", "final_position"), ("bot.game.archive", "FinalGame"), ("bot.queries", "Snapshot"),
}  # fmt: skip


def whole_game_reaches(path: Path) -> list[str]:
    """Where a file imports what holds a whole game (`WHOLE_GAME`) or asks the read side for the stored
    session itself (``queries.snapshot(...)``) rather than what its viewer may see."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.ImportFrom) and node.module:
            found += [
                f"{where} {node.module}.{a.name}" for a in node.names if (node.module, a.name) in WHOLE_GAME
            ]
        elif isinstance(node, ast.Import):
            found += [f"{where} {a.name}" for a in node.names if a.name in ("core.game", "core.view")]
        elif isinstance(node, ast.Attribute) and node.attr in ("snapshot", "session", "game"):
            owner = node.value
            name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", "")
            if name in ("queries", "snapshot", "seen"):
                found.append(f"{where} {name}.{node.attr}")
    return found


def test_no_adapter_holds_a_game_only_what_its_viewer_may_see() -> None:
    assert [where for path in adapter_sources() for where in whole_game_reaches(path)] == []


def test_the_whole_game_check_finds_a_game_taken_from_the_read_side() -> None:
    """`whole_game_reaches` can fail: an adapter that draws from the stored session is caught."""
    leaky = ROOT / "adapters" / "_leaky_example.py"
    try:
        leaky.write_text(
            "from core import Game\n"
            "async def draw(service, chat):\n"
            "    snapshot = await service.queries.snapshot(chat)\n"
            "    return snapshot.session.game\n",
            encoding="utf-8",
        )
        found = whole_game_reaches(leaky)
    finally:
        leaky.unlink()
    assert {text.split(" ", 1)[1] for text in found} == {"core.Game", "queries.snapshot", "snapshot.session"}


def spelled_ids(path: Path) -> list[str]:
    """Where a platform id is written out as a string of its own (docstrings and comments do not count)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in IDS
    ]


def service_written(path: Path) -> list[str]:
    """Where a file sets an attribute of a service (``service.on_app = ...``, ``self.front.service.x = ...``):
    finishing an object someone else built."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute):
                owner = target.value
                name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", "")
                if name == "service":
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} service.{target.attr}")
    return found


def test_no_adapter_finishes_the_service_it_was_given() -> None:
    """What the service needs (who has a page open, what it counts on) is given when it is built
    (cli/main.py), so reading its constructor tells what it does."""
    assert [where for path in adapter_sources() for where in service_written(path)] == []


def test_no_module_holds_the_processs_metrics_or_readiness() -> None:
    """One process, one `Metrics` and one `Readiness`, built by `durak-bot run` and handed on: none kept
    in a module, where two services in one process (the tests') would share them."""
    from bot.runtime.health import Readiness
    from bot.runtime.metrics import Metrics

    held = [
        f"{path.relative_to(ROOT)}: {name}"
        for layer in ("bot", "adapters")
        for path in sorted((ROOT / layer).rglob("*.py"))
        for name, value in vars(importlib.import_module(module_name(path))).items()
        if isinstance(value, Metrics | Readiness)
    ]
    assert held == []


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_platform_ids_are_spelled_only_in_bot_platforms() -> None:
    sources = (path for layer in LAYERS for path in sorted((ROOT / layer).rglob("*.py")))
    found = [
        where for path in sources if path != ROOT / "bot" / "platforms.py" for where in spelled_ids(path)
    ]
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
    assert platform.id in platforms.PLATFORMS, "a worker claims its deadlines"


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
