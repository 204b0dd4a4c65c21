"""A game the AI plays for every person's seat (bot/self_play.py, `durak-bot demo`): its service plays one
seed the same way every time, and the next move is the AI's for the person to act."""

from __future__ import annotations

import fakeredis

from bot.queries import next_move
from bot.self_play import self_play_service
from bot.session import ChatSession, Playing
from storage import ChatRef
from storage.store import RedisGameStore
from tests.bot.conftest import ANN, BOB
from tests.bot.harness import CHAT, Harness

CHAT_REF = ChatRef("tg", CHAT)


async def started(harness: Harness) -> ChatSession:
    await harness.command(ANN, "newgame")
    await harness.tap(BOB, "Join")
    await harness.tap(ANN, "Start")
    session = (await harness.service.queries.snapshot(CHAT_REF)).session
    assert session is not None and isinstance(session.header, Playing)
    return session


async def self_played_start(seed: int) -> str:
    """The stored game a fresh self-play service deals for ``seed``."""
    client = fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
    harness = Harness(RedisGameStore(client))
    harness.service = self_play_service(harness.store, seed)
    try:
        return (await started(harness)).encode()
    finally:
        await client.aclose()


async def test_a_self_play_service_deals_one_seed_the_same_game_every_time() -> None:
    first = await self_played_start(seed=1)
    assert '"game_id":"demo2"' in first, "ids in order: the lobby demo1, its game demo2"
    assert await self_played_start(seed=1) == first
    assert await self_played_start(seed=2) != first


async def test_the_next_move_is_a_legal_move_of_the_person_to_act(harness: Harness) -> None:
    session = await started(harness)
    assert isinstance(session.header, Playing) and session.game is not None
    seat = session.game.to_act
    assert seat is not None
    move = next_move(session, "normal")
    assert move is not None
    user_id, action = move
    assert user_id == session.header.seats[seat].user_id
    assert action in session.game.legal_actions(seat)


async def test_there_is_no_next_move_without_a_running_game(harness: Harness) -> None:
    assert next_move(None, "normal") is None
    await harness.command(ANN, "newgame")
    lobby = (await harness.service.queries.snapshot(CHAT_REF)).session
    assert next_move(lobby, "normal") is None
