"""Typed commands are limited per user like presses: a flood is refused before it costs a Redis call, and
the refusal reaches only the person flooding, never the group."""

from __future__ import annotations

from bot.effects import Alert, Reply
from bot.i18n import translator
from bot.inputs import User
from bot.runtime.ratelimit import COMMAND_BURST, PressLimiter, command_limiter
from tests.bot.conftest import ANN, EVE
from tests.bot.harness import Harness

LIMITED = "Too many commands: wait a moment."


def limit(harness: Harness) -> list[float]:
    """Commands limited on a clock the test moves: returns that clock."""
    now = [0.0]
    harness.service.commands = command_limiter(clock=lambda: now[0])
    return now


async def test_a_user_gets_a_burst_of_commands_then_refusals_that_cost_no_redis_call(
    harness: Harness,
) -> None:
    limit(harness)
    for _ in range(int(COMMAND_BURST)):
        effects = await harness.command(EVE, "rules")
        assert isinstance(effects[0], Reply)
    before = harness.store.round_trips
    for name in ("rules", "help", "stats", "join", "settings", "newgame", "cancel", "leave", "nonsense"):
        effects = await harness.command(EVE, name)
        assert effects == [Alert(EVE.id, LIMITED)], f"/{name} was not refused"
    assert harness.store.round_trips == before, "a refused command never reaches Redis"


async def test_each_user_has_their_own_command_budget(harness: Harness) -> None:
    limit(harness)
    for _ in range(int(COMMAND_BURST) + 3):
        await harness.command(EVE, "rules")
    assert isinstance((await harness.command(ANN, "rules"))[0], Reply)


async def test_the_command_budget_comes_back_with_time(harness: Harness) -> None:
    now = limit(harness)
    for _ in range(int(COMMAND_BURST) + 1):
        await harness.command(EVE, "help")
    assert (await harness.command(EVE, "help"))[0] == Alert(EVE.id, LIMITED)
    now[0] += 2.0  # one command every two seconds
    assert isinstance((await harness.command(EVE, "help"))[0], Reply)


async def test_the_refusal_is_in_the_users_language(harness: Harness) -> None:
    harness.service.commands = PressLimiter(rate=0.5, burst=1, clock=lambda: 0.0)
    ivan = User("77", "Ivan", "ru")
    await harness.command(ivan, "help")
    (alert,) = await harness.command(ivan, "help")
    assert isinstance(alert, Alert) and alert.text == translator("ru")._(LIMITED) != LIMITED
