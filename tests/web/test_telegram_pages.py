"""The Mini App's pages beside a running Telegram bot (`durak-bot run` with WEBAPP_URL and WEBAPP_NAME): on
the webhook's own port, or on PORT of their own while the bot long-polls; a press on a page changes the
group's table through the Telegram adapter, as the button would."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import pytest

from adapters.web.links import game_ref
from tests.fakes.telegram_fixture import telegram_api  # noqa: F401  (the fake Bot API server)
from tests.fakes.telegram_model import FakeUser
from tests.telegram.world import World
from tests.web.initdata import make_init_data


@pytest.fixture
async def app_world(telegram_api: Any, fake_redis: Any) -> AsyncIterator[Callable[..., World]]:  # noqa: F811
    worlds: list[World] = []

    def make(webhook: bool) -> World:
        world = World(telegram_api, fake_redis, webhook=webhook)
        url = f"http://127.0.0.1:{world.config.port}/app"
        world.bot.config = world.config = world.config.model_copy(
            update={"webapp_url": url, "webapp_name": "table"}
        )
        worlds.append(world)
        return world

    yield make
    for world in worlds:
        await world.stop()


def signed_in(world: World, person: FakeUser) -> dict[str, str]:
    init_data = make_init_data(world.fake.token, person.id, person.first_name)
    return {"Authorization": f"tma {init_data}"}


@pytest.mark.parametrize("webhook", [True, False], ids=["on the webhook's port", "on PORT alone"])
async def test_a_press_on_the_page_moves_the_game_in_the_group(
    app_world: Callable[..., World], webhook: bool
) -> None:
    world = app_world(webhook)
    await world.start()
    assert world.service.on_app is not None  # the chat's screens know who has a page open
    ann, bob = world.person("Ann"), world.person("Bob")
    group = world.fake.add_group("Durak club", [ann, bob], owner=ann)
    await world.settle()
    await world.say(group, ann, "/newgame deck=24")
    lobby = world.newest(group, "New game")
    await world.tap(group, lobby, bob, "Join")
    await world.tap(group, lobby, ann, "Start")
    session = await world.session(group)
    assert session is not None and session.game is not None
    mover = [ann, bob][session.game.to_act or 0]
    ref = game_ref(str(group.id), getattr(session.header, "game_id", ""))
    base = world.config.webapp_url
    async with aiohttp.ClientSession() as http:
        page = await http.get(f"{base}/api/state", params={"ref": ref}, headers=signed_in(world, mover))
        state = await page.json()
        move = state["actions"][0]
        pressed = await http.post(
            f"{base}/api/press", json={"payload": move["payload"]}, headers=signed_in(world, mover)
        )
        answer = await pressed.json()
    await world.settle()
    assert answer["ok"], answer
    table = world.newest(group, "Durak")
    assert table.text.count("beaten") + table.text.count("not covered") == 1, table.text
    after = await world.session(group)
    assert after is not None and after.game is not None and after.game.step == session.game.step + 1
