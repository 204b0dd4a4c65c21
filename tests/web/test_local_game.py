"""`durak-bot play --web`: a game against AI players served on 127.0.0.1, signed in with a one-time key."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from adapters.web.local import WebPlayOptions, serve_web_game
from bot.context import ServiceConfig
from bot.inputs import User
from bot.service import GameService
from storage.store import RedisGameStore


@pytest.fixture
async def served_game(fake_redis: Any) -> AsyncIterator[str]:
    """The URL `play --web` prints, its server running until the test ends."""
    store = RedisGameStore(fake_redis)
    service = GameService(store, ServiceConfig(ai_delay=0), seed_source=lambda: 7)
    printed: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    options = WebPlayOptions(players=3, ai="easy", browser=False)
    out = io.StringIO()
    server = asyncio.create_task(
        serve_web_game(service, fake_redis, User("you", "Ann"), options, out, opened=printed.set_result)
    )
    url = await asyncio.wait_for(printed, 10)
    assert url in out.getvalue()
    yield url
    server.cancel()
    with pytest.raises(asyncio.CancelledError):
        await server


def parts(url: str) -> tuple[str, str, str]:
    """(base, ref, key) of the printed URL."""
    base, _, fragment = url.partition("#key=")
    return base.partition("/?ref=")[0], base.partition("?ref=")[2], fragment


async def test_the_printed_url_serves_the_game_on_this_machine_only(served_game: str) -> None:
    base, ref, key = parts(served_game)
    assert base.startswith("http://127.0.0.1:") and ref.startswith("web_") and key
    async with aiohttp.ClientSession() as http:
        signed_in = await http.post(base + "/api/session", headers={"Authorization": f"key {key}"})
        answer = await signed_in.json()
        token = answer["token"]
        state = await (
            await http.get(
                base + "/api/state", params={"ref": ref}, headers={"Authorization": f"session {token}"}
            )
        ).json()
        page = await (await http.get(base + "/")).text()
    assert answer["ref"] == ref
    assert state["you"] == 0 and state["phase"] == "play" and len(state["seats"]) == 3
    assert [seat["ai"] for seat in state["seats"]] == [False, True, True]
    assert "<html" in page


async def test_the_one_time_key_works_once(served_game: str) -> None:
    base, ref, key = parts(served_game)
    async with aiohttp.ClientSession() as http:
        first = await http.post(base + "/api/session", headers={"Authorization": f"key {key}"})
        second = await http.post(base + "/api/session", headers={"Authorization": f"key {key}"})
        guessed = await http.post(base + "/api/session", headers={"Authorization": "key guessed"})
        made_up = await http.get(
            base + "/api/state", params={"ref": ref}, headers={"Authorization": "session made-up"}
        )
        assert first.status == 200
        assert second.status == 401 and (await second.json())["error"]
        assert guessed.status == 401 and made_up.status == 401


async def test_a_move_on_the_page_is_answered_by_the_ai_players(served_game: str) -> None:
    base, ref, key = parts(served_game)
    async with aiohttp.ClientSession() as http:
        token = (
            await (await http.post(base + "/api/session", headers={"Authorization": f"key {key}"})).json()
        )["token"]
        signed = {"Authorization": f"session {token}"}
        state = await (await http.get(base + "/api/state", params={"ref": ref}, headers=signed)).json()
        while not state["actions"]:  # the AIs move at once here (AI_DELAY 0)
            state = await (await http.get(base + "/api/state", params={"ref": ref}, headers=signed)).json()
        move = state["actions"][0]
        pressed = await (
            await http.post(base + "/api/press", json={"payload": move["payload"]}, headers=signed)
        ).json()
    assert pressed["ok"]
    assert pressed["state"]["step"] > state["step"]


def test_play_takes_web_port_and_no_browser() -> None:
    from cli.main import parser

    args = parser().parse_args(
        ["play", "transfer", "--web", "--port", "8765", "--no-browser", "--players", "3"]
    )
    assert (args.web, args.port, args.no_browser, args.words, args.players) == (
        True,
        8765,
        True,
        ["transfer"],
        3,
    )
    assert not parser().parse_args(["play"]).web  # the terminal game stays the default
