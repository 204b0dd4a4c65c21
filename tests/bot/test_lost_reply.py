"""A save Redis applied but whose reply was lost (a socket timeout) is delivered as applied, not as an outage.

The fault is injected by a client wrapper: it runs the save script for real, then raises the timeout redis-py
raises when a reply does not come in time. A save that never ran is reported as an outage, and can never land
later.
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
from redis import exceptions as rex

from bot.effects import Alert, ShowHand, ShowTable
from storage import ChatRef
from storage.scripts import SAVE, SAVE_COUNTING
from storage.store import RedisGameStore
from tests.bot.conftest import ANN, BOB
from tests.bot.harness import CHAT, Harness, buttons
from tests.bot.test_play import start, whose_turn

UNAVAILABLE = "The game service is unavailable, try again in a moment."


SAVES = (SAVE.sha, SAVE_COUNTING.sha)  # the save script, whichever way its store counts versions


class LosesSaveReplies:
    """A redis.asyncio client whose next save, once `armed`, times out: after running (`applies`) or before.

    With `stays_down`, every script after that save times out too (Redis stopped answering altogether)."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.client = client
        self.armed = False
        self.applies = True
        self.stays_down = False
        self.down = False
        self.lost: list[Any] = []  # the arguments of a save that never ran

    async def evalsha(self, sha: str, *rest: Any) -> Any:
        if self.down:
            raise rex.TimeoutError("Timeout reading from socket")
        if sha in SAVES and self.armed:
            self.armed, self.down = False, self.stays_down
            if self.applies:
                await self.client.evalsha(sha, *rest)
            else:
                self.lost = [sha, *rest]
            raise rex.TimeoutError("Timeout reading from socket")
        return await self.client.evalsha(sha, *rest)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)


def a_harness(redis: aioredis.Redis) -> tuple[Harness, LosesSaveReplies]:
    client = LosesSaveReplies(redis)
    return Harness(RedisGameStore(client, counting_versions=True)), client  # type: ignore[arg-type]


async def a_move(harness: Harness) -> str:
    await start(harness)
    user = whose_turn(harness, (ANN, BOB))
    assert user is not None
    return next(b.payload for b in buttons(harness.screen.hands[user.id]) if not b.payload.endswith("|e"))


def mover(harness: Harness) -> Any:
    user = whose_turn(harness, (ANN, BOB))
    assert user is not None
    return user


async def test_a_move_whose_save_reply_was_lost_is_delivered_as_applied(
    redis: aioredis.Redis,
) -> None:
    harness, client = a_harness(redis)
    payload = await a_move(harness)
    user, before = mover(harness), await harness.version()
    client.armed = True
    effects = await harness.press(user, payload)
    assert await harness.version() == before + 1, "the move stands, once"
    assert not [e for e in effects if isinstance(e, Alert) and e.text == UNAVAILABLE]
    screens = [e for e in effects if isinstance(e, ShowTable | ShowHand)]
    assert screens and all(e.version == before + 1 for e in screens), "its screens, stamped with its version"


async def test_the_game_goes_on_from_the_move_whose_reply_was_lost(
    redis: aioredis.Redis,
) -> None:
    harness, client = a_harness(redis)
    payload = await a_move(harness)
    client.armed = True
    await harness.press(mover(harness), payload)
    user = mover(harness)
    before = await harness.version()
    choice = next(b for b in buttons(harness.screen.hands[user.id]) if not b.payload.endswith("|e"))
    await harness.press(user, choice.payload)
    assert await harness.version() == before + 1, (
        "the next player's button, drawn after the lost reply, works"
    )


async def test_a_save_that_never_ran_is_reported_unavailable_and_cannot_land_later(
    redis: aioredis.Redis,
) -> None:
    harness, client = a_harness(redis)
    payload = await a_move(harness)
    user, before = mover(harness), await harness.version()
    client.armed, client.applies = True, False
    effects = await harness.press(user, payload)
    assert [e.text for e in effects if isinstance(e, Alert)] == [UNAVAILABLE]
    assert await harness.version() == before
    await redis.evalsha(*client.lost)  # the lost save reaches Redis after all, late
    assert await harness.version() == before, "a save the service gave up on never applies"


async def test_when_the_question_times_out_too_the_mover_is_told_the_service_is_unavailable(
    redis: aioredis.Redis,
) -> None:
    harness, client = a_harness(redis)
    payload = await a_move(harness)
    user = mover(harness)
    client.armed, client.stays_down = True, True
    effects = await harness.press(user, payload)
    assert [e.text for e in effects if isinstance(e, Alert)] == [UNAVAILABLE]
    record = await RedisGameStore(redis).load(ChatRef("tg", CHAT))
    assert record.state is not None, "nothing else was touched"
