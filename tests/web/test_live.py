"""The live channel: an open page gets its own new state after every saved change of its chat, whoever made
it and in whichever process; a page must say who it is first; presence follows the open sockets."""

from __future__ import annotations

import asyncio
from typing import Any

import fakeredis
import pytest
from aiohttp import WSMsgType

from storage import ChatRef
from storage.keys import live_channel
from storage.presence import open_pages
from storage.store import RedisGameStore
from tests.bot.harness import Harness
from tests.bot.stacked import press_move, stacked_game
from tests.web.pages import (
    ANN,
    BOB,
    auth,
    current_ref,
    front_end,
    next_state,
    open_page,
    press,
    served,
    state_at,
)

HANDS = ["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH"]


@pytest.fixture
def harness(fake_redis: Any) -> Harness:
    return Harness(RedisGameStore(fake_redis, counting_versions=True))


async def test_every_save_is_published_on_the_chats_channel(store: RedisGameStore) -> None:
    chat = ChatRef("tg", "-100")
    listener = store.redis.pubsub(ignore_subscribe_messages=True)
    await listener.subscribe(live_channel(chat))
    try:
        version = await store.save(chat, 0, "state", ttl=60)
        message = None
        for _ in range(50):
            message = await listener.get_message(ignore_subscribe_messages=True, timeout=0.1)
            if message is not None:
                break
        assert message is not None and message["data"] == f"{chat}|{version}"
    finally:
        await listener.aclose()


async def test_a_page_gets_its_state_at_once_and_after_a_chat_button(
    harness: Harness, fake_redis: Any
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        page = await open_page(client, BOB, await current_ref(harness))
        first = await next_state(page)
        assert first["version"] == await harness.version() and first["you"] == 1
        await press_move(harness, ANN, "a:6S")  # a button in the chat, not on the page
        moved = await state_at(page, first["version"] + 1)
        await page.close()
    assert moved["table"] == [["6S", None]]
    assert [a["kind"] for a in moved["actions"]] == ["take"]
    assert sorted(moved["hand"]) == sorted(HANDS[1].split())


async def test_a_reconnecting_page_gets_the_current_state_at_once(harness: Harness, fake_redis: Any) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        ref = await current_ref(harness)
        page = await open_page(client, ANN, ref)
        before = await next_state(page)
        await page.close()
        await press_move(harness, ANN, "a:6S")  # while no page was open
        again = await open_page(client, ANN, ref)
        state = await next_state(again)
        await again.close()
    assert state["version"] == before["version"] + 1 == await harness.version()
    assert state["table"] == [["6S", None]]


async def test_a_press_in_one_process_reaches_a_page_of_another(fake_redis: Any) -> None:
    server = fake_redis.connection_pool.connection_kwargs["server"]
    other_redis = fakeredis.aioredis.FakeRedis(server=server, decode_responses=True)
    one = Harness(RedisGameStore(fake_redis, counting_versions=True))
    other = Harness(RedisGameStore(other_redis, counting_versions=True))  # its own service, on the same Redis
    await stacked_game(one, (ANN, BOB), HANDS, trump="AD")
    front_one, _ = front_end(one, fake_redis)
    front_other, _ = front_end(other, other_redis)
    try:
        async with served(front_one) as client_one, served(front_other) as client_other:
            ref = await current_ref(one)
            page = await open_page(client_other, BOB, ref)
            first = await next_state(page)
            attack = next(
                a for a in (await next_state_of(client_one, ANN, ref))["actions"] if a["card"] == "6S"
            )
            assert (await press(client_one, ANN, attack["payload"]))["ok"]
            moved = await state_at(page, first["version"] + 1)
            await page.close()
    finally:
        await other_redis.aclose()
    assert moved["table"] == [["6S", None]] and moved["you"] == 1


async def next_state_of(client: Any, user: Any, ref: str) -> dict[str, Any]:
    answer = await client.get("/api/state", params={"ref": ref}, headers={"Authorization": auth(user)})
    state: dict[str, Any] = await answer.json()
    return state


async def test_a_socket_without_hello_is_closed(harness: Harness, fake_redis: Any) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis, hello_timeout=0.2)
    async with served(front) as client:
        silent = await client.ws_connect("/api/ws")
        said = await silent.receive(timeout=5)
        closed = await silent.receive(timeout=5)
        assert said.type == WSMsgType.TEXT and said.json()["status"] == 401
        assert closed.type == WSMsgType.CLOSE and silent.close_code == 4401
        forged = await client.ws_connect("/api/ws")
        ref = await current_ref(harness)
        await forged.send_json(
            {"type": "hello", "authorization": auth(ANN).replace("Ann", "Bob"), "ref": ref}
        )
        assert (await forged.receive(timeout=5)).json()["status"] == 401
        await forged.receive(timeout=5)
        assert forged.close_code == 4401
    assert await open_pages(fake_redis, ChatRef("tg", harness.chat)) == set()


async def test_an_open_page_is_present_until_it_closes(harness: Harness, fake_redis: Any) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis)
    chat = ChatRef("tg", harness.chat)
    changes: list[tuple[ChatRef, str, bool]] = []

    async def note(chat: ChatRef, user_id: str, is_open: bool) -> None:
        changes.append((chat, user_id, is_open))

    front.hub.listen(note)
    async with served(front) as client:
        ref = await current_ref(harness)
        first, second = await open_page(client, ANN, ref), await open_page(client, ANN, ref)
        await next_state(first), await next_state(second)
        assert await open_pages(fake_redis, chat) == {ANN.id}
        await first.close()
        await asyncio.sleep(0.05)
        assert await open_pages(fake_redis, chat) == {ANN.id}  # the other page is still open
        await second.close()
        for _ in range(50):
            if len(changes) == 2:
                break
            await asyncio.sleep(0.02)
        assert await open_pages(fake_redis, chat) == set()
    assert changes == [(chat, ANN.id, True), (chat, ANN.id, False)]


async def test_a_page_open_past_its_time_no_longer_counts(fake_redis: Any) -> None:
    from storage.presence import PAGE_TTL, mark_open

    chat = ChatRef("tg", "-100")
    await mark_open(fake_redis, [(chat, ANN.id, "s1")], now=1000.0)
    assert await open_pages(fake_redis, chat, now=1000.0 + PAGE_TTL - 1) == {ANN.id}
    assert await open_pages(fake_redis, chat, now=1000.0 + PAGE_TTL + 1) == set()
