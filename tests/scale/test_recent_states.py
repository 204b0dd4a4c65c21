"""The service's per-chat memo of the last saved state (and the hands drawn for it) changes nothing visible.

Two services play the same game with the same ids and seed, one with the memo and one without; every input
must give exactly the same effects. A second check: a game moved on by another process is decoded afresh.
"""

from __future__ import annotations

import fakeredis
import pytest

from bench.service import move_payloads, table_payload
from bot.context import ServiceConfig
from bot.effects import Effect, ShowHand, ShowTable
from bot.inputs import Command, Press, User
from bot.service import GameService, RecentStates
from storage.store import RedisGameStore

pytest.importorskip("lupa")

CHAT = "-42"
USERS = [User(str(n), f"P{n}") for n in range(1, 5)]


def service(memo: bool) -> GameService:
    client = fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
    ids = iter(f"g{n}" for n in range(1, 100))
    made = GameService(
        RedisGameStore(client), ServiceConfig(ai_delay=1.0), clock=lambda: 1000.0, new_id=lambda: next(ids),
        seed_source=lambda: 7,
    )  # fmt: skip
    if not memo:
        made.recent = RecentStates(size=0)
    return made


async def test_memo_gives_the_same_effects_as_decoding_every_time() -> None:
    with_memo, without = service(True), service(False)
    inputs: list[Command | Press] = [Command("tg", CHAT, USERS[0], "newgame", "transfer", chat_title="C")]
    hands: dict[str, object] = {}
    table = None
    steps = 0
    while inputs and steps < 400:
        event = inputs.pop()
        a, b = await with_memo.handle(event), await without.handle(event)
        assert a == b, f"input {steps} differs: {event}"
        steps += 1
        for effect in a:
            if isinstance(effect, ShowTable):
                table = effect.message
            elif isinstance(effect, ShowHand):
                hands[effect.user_id] = effect.message
        inputs = next_inputs(steps, table, hands, a)
    assert steps > 20 and not inputs, "the game ran to its end"
    assert len(with_memo.recent.items) == 1 and not without.recent.items


def next_inputs(steps: int, table: object, hands: dict[str, object], last: list[Effect]) -> list[Press]:
    if steps <= 3:  # the three others join, then the creator starts
        return [Press("tg", USERS[steps], table_payload(table, "J"))]  # type: ignore[arg-type]
    if steps == 4:
        return [Press("tg", USERS[0], table_payload(table, "S"))]  # type: ignore[arg-type]
    for user in USERS:
        moves = move_payloads(hands.get(user.id))  # type: ignore[arg-type]
        if moves:
            return [Press("tg", user, moves[steps % len(moves)])]
    return []


async def test_a_state_saved_elsewhere_is_decoded_not_taken_from_the_memo() -> None:
    client = fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
    one, two = (GameService(RedisGameStore(client), ServiceConfig(ai_delay=1.0)) for _ in range(2))
    await one.handle(Command("tg", CHAT, USERS[0], "newgame", "", chat_title="C"))
    lobby_text = one.recent.items[next(iter(one.recent.items))][0]
    assert await two.handle(Command("tg", CHAT, USERS[1], "rules")) and not two.recent.items  # no save
    record = await one.store.load(next(iter(one.recent.items)))
    assert record.state == lobby_text
    effects = await two.handle(Press("tg", USERS[1], join_payload(lobby_text)))
    assert any(isinstance(e, ShowTable) for e in effects)
    # process one's memo now holds an old text: its next input must see Bob seated
    chat = next(iter(one.recent.items))
    session = one.recent.session(chat, (await one.store.load(chat)).state)
    assert session is not None and [s.user_id for s in session.header.seats] == ["1", "2"]


def join_payload(state: str) -> str:
    import json

    lobby_id = json.loads(state.partition("\n")[0])["lobby_id"]
    return f"{CHAT}|{lobby_id}|0|J"
