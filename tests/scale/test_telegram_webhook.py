"""Telegram by webhook with two bot processes behind one address: a round-robin proxy spreads the fake Bot
API's updates over both; a whole game is played, and an update Telegram delivers twice (to the two
processes at once) is applied once. Each process serves its own Prometheus numbers on its webhook port, and
over both they add up: every applied input and every Bot API call counted once."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable

import pytest

from bot import payloads
from bot.session import ChatSession, Finished, Playing
from storage import ChatRef
from storage.connect import client_for_url
from storage.embedded import RedisServer
from storage.keys import live_channel
from storage.store import RedisGameStore
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_model import Clock
from tests.prometheus import scrape, value
from tests.scale.cluster import webhook_bots
from tests.scale.taps import made_now
from tests.scale.tg_worker import SPEED

pytestmark = pytest.mark.redis_server
LOBBY_CODES = {"J", "L", "S", "C", "R", "H"}


@pytest.fixture
async def two_bots(
    redis_server_factory: Callable[..., RedisServer],
) -> AsyncIterator[tuple[FakeTelegram, RedisGameStore, dict[int, list[int]]]]:
    server = redis_server_factory("webhook")
    fake = FakeTelegram()
    fake.clock = Clock(speed=SPEED)
    await fake.start()
    client = client_for_url(server.url)
    try:
        async with webhook_bots(fake, server.url, processes=2) as cluster:
            yield fake, RedisGameStore(client), cluster.seen
    finally:
        await fake.close()
        await client.aclose()


async def settle(fake: FakeTelegram, limit: float = 10) -> None:
    """Every update delivered (2xx) and a moment for the bots' messages to go out."""
    begin = time.monotonic()
    while (fake.pending or fake.redeliveries) and time.monotonic() - begin < limit:
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.15)


def drawn_step(data: str) -> int:
    """The game step a button's payload was drawn at (-1: not a payload of ours)."""
    parsed = payloads.parse(data)
    return parsed.step if parsed is not None else -1


def buttons(fake: FakeTelegram, chat_id: int) -> list[tuple[int, str, str]]:
    """(message id, label, callback data) of every live button in the chat, newest message first."""
    found = []
    for message_id, message in sorted(fake.chat(chat_id).messages.items(), reverse=True):
        if not message.deleted:
            found += [(message_id, b["text"], b.get("callback_data", "")) for b in message.buttons()]
    return found


async def session_of(store: RedisGameStore, chat_id: int) -> ChatSession | None:
    record = await store.load(ChatRef("tg", str(chat_id)))
    return ChatSession.decode(record.state) if record.state else None


async def test_two_webhook_processes_share_the_updates_play_a_whole_game_and_apply_a_redelivery_once(
    two_bots: tuple[FakeTelegram, RedisGameStore, dict[int, list[int]]],
) -> None:
    fake, store, seen = two_bots
    ann = fake.add_user("Ann")
    group = fake.add_group("Club", [ann])
    saves = store.redis.pubsub()  # every save publishes on the chat's live channel: a count of saves
    await saves.subscribe(live_channel(ChatRef("tg", str(group.id))))
    fake.user_starts(ann)
    fake.user_sends(group, ann, "/newgame")
    await settle(fake)
    for label in ("Add AI", "Start"):
        message_id, _, _ = next(b for b in buttons(fake, group.id) if b[1] == label)
        fake.press_button(group, message_id, ann, label)
        await settle(fake)
    session = await session_of(store, group.id)
    assert session is not None and isinstance(session.header, Playing), "the game was dealt"
    duplicated, duplicate_query = False, ""
    begin = time.monotonic()
    while isinstance(session.header, Playing) and time.monotonic() - begin < 60:
        assert session.game is not None
        moves = [b for b in buttons(fake, ann.id) if b[2] and b[2].split("|")[3] not in LOBBY_CODES]
        current = [b for b in moves if drawn_step(b[2]) == session.game.step]
        left = [b for b in moves if made_now(session.game, session.header.game_id, 0, b[2])]
        current = current or left  # a button of her hand (seat 0) drawn a step before, still made as tapped
        if current:
            message_id, _, data = current[0]
            twice = not duplicated and session.game.step > 3
            version = (await store.load(ChatRef("tg", str(group.id)))).version
            query = fake.user_presses(ann.id, message_id, ann, data, duplicate=twice)
            await settle(fake)
            if twice:  # delivered to both processes (round robin) at once: one save, not two
                assert (await store.load(ChatRef("tg", str(group.id)))).version > version
                after = await session_of(store, group.id)
                assert after is not None and after.game is not None
                hers = [seat for seat, _ in after.game.log[session.game.step :] if seat == 0]
                assert hers == [0], "her press applied once, not twice (an AI seat may have moved since)"
                duplicated, duplicate_query = True, query
        else:
            await asyncio.sleep(0.05)
        session = await session_of(store, group.id)
        assert session is not None
    assert isinstance(session.header, Finished), "the game ended"
    assert duplicated, "a redelivered update was tested"
    assert all(len(ids) >= 5 for ids in seen.values()), {p: len(v) for p, v in seen.items()}
    # the only refusals: the process that lost the race answers the already answered query (Telegram says
    # 400), and shows the presser the screens again (bot/game/moves.py stale_press), which the winner had just
    # shown
    errors = [
        e
        for e in fake.errors
        if e.params.get("callback_query_id") != duplicate_query and "not modified" not in e.description
    ]
    assert not errors, errors[:3]
    saved = 0
    while (message := await saves.get_message(timeout=0.5)) is not None:  # None: nothing more came
        saved += message["type"] == "message"
    await saves.aclose()
    await counted_once_over_both_processes(fake, saved, list(seen))


async def counted_once_over_both_processes(fake: FakeTelegram, saved: int, ports: list[int]) -> None:
    """Prometheus sums the processes' pages: the sum of applied inputs is the chat's number of saves (as
    its live channel announced them; the redelivered press is not counted twice), and the Bot API calls are
    those the fake saw."""
    pages = [await scrape(f"http://127.0.0.1:{port}/metrics") for port in ports]
    assert [status for status, _ in pages] == [200, 200]
    kinds = ("command", "press", "timer")
    applied = [
        sum(value(page, "durak_actions_total", platform="tg", kind=k) for k in kinds) for _, page in pages
    ]
    assert sum(applied) == saved
    assert all(share > 0 for share in applied), applied
    calls = Counter[tuple[str, str]]()
    for _, page in pages:
        for (name, pairs), count in page.items():
            if name == "durak_platform_api_calls_total":
                labels = dict(pairs)
                calls[labels["method"], labels["status"]] += int(count)
    assert calls == Counter((record.method, str(record.status)) for record in fake.call_log)
