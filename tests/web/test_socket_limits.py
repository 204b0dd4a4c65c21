"""Sockets cost bounded work: a page is registered (present, subscribed, its closing resuming the chat) only
once it may see the chat, so a refused hello costs one load and nothing else; one person and one address
hold only so many sockets in a process; presence fields lapse with the process that wrote them."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import pytest
from aiohttp import ClientWebSocketResponse, WSMsgType, web
from redis.asyncio.connection import AbstractConnection

from adapters.web.links import game_ref
from adapters.web.live import CLOSE_TOO_MANY, MAX_SOCKETS_PER_ADDRESS, MAX_SOCKETS_PER_PERSON
from adapters.web.refusals import CLOSE_NOT_FOUND
from adapters.web.server import WebFrontEnd
from bot.effects import Effect
from bot.inputs import TimerDue
from bot.timers import resume_on_close
from storage import ChatRef
from storage.keys import live_channel, pages_key
from storage.presence import PAGE_TTL, mark_open, open_pages, page_field
from storage.store import RedisGameStore
from tests.bot.harness import Harness
from tests.bot.stacked import stacked_game
from tests.web.pages import ANN, BOB, EVE, auth, current_ref, front_end, next_state, open_page, served

HANDS = ["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH"]
PROXIED = {"X-Forwarded-For": "198.51.100.1, 203.0.113.7"}  # as a proxy on this host passes it on


class RedisCalls:
    """Round trips to Redis from this process, counted where redis-py sends them (a pipeline is one)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        send = AbstractConnection.send_packed_command

        async def counted(connection: AbstractConnection, *args: Any, **kwargs: Any) -> None:
            self.count += 1
            await send(connection, *args, **kwargs)

        monkeypatch.setattr(AbstractConnection, "send_packed_command", counted)


@pytest.fixture
def redis_calls(monkeypatch: pytest.MonkeyPatch) -> RedisCalls:
    return RedisCalls(monkeypatch)


@pytest.fixture
def harness(fake_redis: Any) -> Harness:
    return Harness(RedisGameStore(fake_redis))


def sockets_finished(front: WebFrontEnd, monkeypatch: pytest.MonkeyPatch) -> asyncio.Queue[None]:
    """One item each time the server is done with a socket (its handler returned, cleanup included)."""
    finished: asyncio.Queue[None] = asyncio.Queue()
    handle: Callable[[web.Request], Awaitable[web.WebSocketResponse]] = front.websocket

    async def handled(request: web.Request) -> web.WebSocketResponse:
        try:
            return await handle(request)
        finally:
            finished.put_nowait(None)

    monkeypatch.setattr(front, "websocket", handled)
    return finished


async def refused_with(socket: ClientWebSocketResponse) -> tuple[dict[str, Any], int | None]:
    """What a refused socket is told, and the code it is closed with."""
    said = await socket.receive(timeout=5)
    assert said.type == WSMsgType.TEXT, said
    closed = await socket.receive(timeout=5)
    assert closed.type in (WSMsgType.CLOSE, WSMsgType.CLOSED), closed
    told: dict[str, Any] = said.json()
    return told, socket.close_code


async def pages_registered(front: WebFrontEnd, count: int) -> None:
    """Wait (bounded) until this process has ``count`` pages registered."""
    for _ in range(250):
        if sum(len(pages) for pages in front.hub.pages.values()) == count:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"never {count} pages registered")


async def test_a_refused_hello_registers_nothing_publishes_nothing_and_resumes_nothing(
    harness: Harness, fake_redis: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis)
    chat = ChatRef("tg", harness.chat)
    changes: list[tuple[ChatRef, str, bool]] = []
    resumed: list[Effect] = []

    async def note(chat: ChatRef, user_id: str, is_open: bool) -> None:
        changes.append((chat, user_id, is_open))

    async def deliver(due: TimerDue, effects: list[Effect]) -> None:
        resumed.extend(effects)

    harness.service.on_app = partial(open_pages, fake_redis)  # as `durak-bot run` builds the service
    front.hub.listen(note)
    front.hub.listen(resume_on_close(harness.service, deliver))
    finished = sockets_finished(front, monkeypatch)
    channel = fake_redis.pubsub(ignore_subscribe_messages=True)
    await channel.subscribe(live_channel(chat))
    try:
        async with served(front) as client:
            outsider = await open_page(client, EVE, game_ref(harness.chat, "guessed"))  # the chat id known
            told, code = await refused_with(outsider)
            await asyncio.wait_for(finished.get(), 5)
        notes = []
        while (message := await channel.get_message(ignore_subscribe_messages=True, timeout=0.1)) is not None:
            notes.append(message["data"])
    finally:
        await channel.aclose()
    assert told["status"] == 404 and code == CLOSE_NOT_FOUND
    assert changes == [] and resumed == []
    assert notes == []  # not even a presence note
    assert await fake_redis.exists(pages_key(chat)) == 0


async def test_a_refused_hello_costs_one_load_of_the_chat(
    harness: Harness, fake_redis: Any, monkeypatch: pytest.MonkeyPatch, redis_calls: RedisCalls
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis)
    front.hub.listen(resume_on_close(harness.service, lambda due, effects: asyncio.sleep(0)))
    finished = sockets_finished(front, monkeypatch)
    async with served(front) as client:
        outsider = await client.ws_connect("/api/ws")
        before = redis_calls.count
        ref = game_ref(harness.chat, "guessed")
        await outsider.send_json({"type": "hello", "authorization": auth(EVE), "ref": ref})
        told, _ = await refused_with(outsider)
        await asyncio.wait_for(finished.get(), 5)
        calls = redis_calls.count - before
    assert told["status"] == 404
    assert calls == 1, f"a refused hello made {calls} Redis calls"


async def test_one_person_holds_at_most_so_many_sockets_in_a_process(
    harness: Harness, fake_redis: Any
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis)
    chat = ChatRef("tg", harness.chat)
    async with served(front) as client:
        ref = await current_ref(harness)
        pages = [await open_page(client, ANN, ref) for _ in range(MAX_SOCKETS_PER_PERSON)]
        for page in pages:
            await next_state(page)
        one_more = await open_page(client, ANN, ref)
        told, code = await refused_with(one_more)
        assert told["status"] == 429 and code == CLOSE_TOO_MANY
        assert "close one" in told["error"]
        assert await fake_redis.hlen(pages_key(chat)) == MAX_SOCKETS_PER_PERSON
        bobs = await open_page(client, BOB, ref)  # someone else is not held back by Ann's pages
        await next_state(bobs)
        await pages[0].close()
        await pages_registered(front, MAX_SOCKETS_PER_PERSON)
        again = await open_page(client, ANN, ref)  # one closed: one may open
        await next_state(again)
        for page in [*pages[1:], bobs, again]:
            await page.close()


async def test_one_address_holds_at_most_so_many_sockets_in_a_process(
    harness: Harness, fake_redis: Any
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis, hello_timeout=30.0)
    async with served(front) as client:
        ref = await current_ref(harness)
        # sockets that have not said hello yet count too: they are what a flood of connections holds
        held = [await client.ws_connect("/api/ws", headers=PROXIED) for _ in range(MAX_SOCKETS_PER_ADDRESS)]
        one_more = await client.ws_connect("/api/ws", headers=PROXIED)
        told, code = await refused_with(one_more)
        assert told["status"] == 429 and code == CLOSE_TOO_MANY
        elsewhere = await client.ws_connect("/api/ws", headers={"X-Forwarded-For": "203.0.113.8"})
        await elsewhere.send_json({"type": "hello", "authorization": auth(BOB), "ref": ref})
        await next_state(elsewhere)
        for socket in [*held, elsewhere]:
            await socket.close()


async def test_presence_fields_left_by_a_dead_process_are_pruned_when_the_chat_is_refreshed(
    store: RedisGameStore,
) -> None:
    chat = ChatRef("tg", "-100")
    await mark_open(store.redis, [(chat, ANN.id, "dead")], now=1000.0)  # its process's last refresh
    await mark_open(store.redis, [(chat, BOB.id, "alive")], now=1000.0 + PAGE_TTL + 1)  # another process
    assert set(await store.redis.hkeys(pages_key(chat))) == {page_field(BOB.id, "alive")}
    assert await open_pages(store.redis, chat, now=1000.0 + PAGE_TTL + 1) == {BOB.id}


async def test_refreshing_the_presence_of_every_chat_is_one_redis_call(
    store: RedisGameStore, redis_calls: RedisCalls
) -> None:
    chats = [ChatRef("tg", f"-10{n}") for n in range(3)]
    await mark_open(store.redis, [(chats[0], ANN.id, "warm")], now=1000.0)  # the script is known now
    before = redis_calls.count
    await mark_open(store.redis, [(chat, ANN.id, f"s{n}") for n, chat in enumerate(chats)], now=1010.0)
    assert redis_calls.count - before == 1
