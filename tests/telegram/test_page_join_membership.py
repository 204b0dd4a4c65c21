"""Only members of a group join its games from the Mini App's page (docs/webapp.md, docs/reliability.md §12):
a forwarded "Open table" link lets anyone open the page and watch, but a Join there by someone Telegram does
not count as a member of the group (getChatMember) is refused with a clear text before it reaches the game,
so nobody is rated in a group they are not in. The lobby's own Join link (a deep link into the private
chat) can be forwarded too, and is held to the same rule."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from adapters.web.links import game_ref
from bot.session import Lobby
from tests.fakes.telegram_fixture import telegram_api  # noqa: F401  (the fake Bot API server)
from tests.fakes.telegram_model import FakeChat, FakeUser
from tests.telegram.world import World
from tests.web.initdata import make_init_data

REFUSED = "Only members of this chat can join its games."


@pytest.fixture
async def world(telegram_api: Any, fake_redis: Any) -> AsyncIterator[World]:  # noqa: F811
    """A bot with the Mini App's pages on PORT, beside long polling."""
    made = World(telegram_api, fake_redis)
    url = f"http://127.0.0.1:{made.config.port}/app"
    made.bot.config = made.config = made.config.model_copy(update={"webapp_url": url, "webapp_name": "table"})
    await made.start()
    yield made
    await made.stop()


def signed_in(world: World, person: FakeUser) -> dict[str, str]:
    return {"Authorization": "tma " + make_init_data(world.fake.token, person.id, person.first_name)}


async def lobby_in(world: World, group: FakeChat, creator: FakeUser) -> str:
    """``creator`` opens a lobby in ``group``; its ref, as the "Open table" link carries it."""
    await world.say(group, creator, "/newgame")
    session = await world.session(group)
    assert session is not None and isinstance(session.header, Lobby)
    return game_ref(str(group.id), session.header.lobby_id)


async def page_state(world: World, person: FakeUser, ref: str) -> dict[str, Any]:
    async with aiohttp.ClientSession() as http:
        answer = await http.get(
            f"{world.config.webapp_url}/api/state", params={"ref": ref}, headers=signed_in(world, person)
        )
        assert answer.status == 200, await answer.text()
        state: dict[str, Any] = await answer.json()
        return state


async def press_join_on_the_page(world: World, person: FakeUser, ref: str) -> dict[str, Any]:
    join = next(b for b in (await page_state(world, person, ref))["buttons"] if b["label"] == "Join")
    async with aiohttp.ClientSession() as http:
        answer = await http.post(
            f"{world.config.webapp_url}/api/press",
            json={"payload": join["payload"]},
            headers=signed_in(world, person),
        )
        assert answer.status == 200, await answer.text()
        pressed: dict[str, Any] = await answer.json()
    await world.settle()
    return pressed


async def seated(world: World, group: FakeChat) -> list[str]:
    session = await world.session(group)
    assert session is not None
    return [seat.name for seat in session.header.seats]


async def test_a_join_from_the_page_by_someone_not_in_the_group_is_refused(world: World) -> None:
    ann, mal = world.person("Ann"), world.person("Mal")
    group = world.fake.add_group("Durak club", [ann], owner=ann)
    ref = await lobby_in(world, group, ann)
    pressed = await press_join_on_the_page(world, mal, ref)
    assert (pressed["ok"], pressed["reason"]) == (False, REFUSED)
    assert await seated(world, group) == ["Ann"]
    assert pressed["state"]["phase"] == "lobby", "the page still shows the lobby to watch"


async def test_a_join_from_the_page_by_a_member_of_the_group_seats_them(world: World) -> None:
    ann, bob = world.person("Ann"), world.person("Bob")
    group = world.fake.add_group("Durak club", [ann, bob], owner=ann)
    ref = await lobby_in(world, group, ann)
    pressed = await press_join_on_the_page(world, bob, ref)
    assert pressed["ok"], pressed
    assert await seated(world, group) == ["Ann", "Bob"]


@pytest.mark.parametrize(
    ("status", "in_chat", "joins"),
    [
        ("administrator", True, True),
        ("creator", True, True),
        ("restricted", True, True),
        ("restricted", False, False),
        ("left", False, False),
        ("kicked", False, False),
    ],
)
async def test_who_counts_as_a_member_is_what_telegram_answers_for_the_group(
    world: World, status: str, in_chat: bool, joins: bool
) -> None:
    ann, bob = world.person("Ann"), world.person("Bob")
    group = world.fake.add_group("Durak club", [ann], owner=ann if status != "creator" else None)
    if status == "restricted":
        world.fake.restrict(group, bob, is_member=in_chat)
    else:
        group.members[bob.id] = status
    ref = await lobby_in(world, group, ann)
    pressed = await press_join_on_the_page(world, bob, ref)
    assert pressed["ok"] is joins, pressed
    assert await seated(world, group) == (["Ann", "Bob"] if joins else ["Ann"])


async def test_someone_not_in_the_group_may_still_watch_the_game_from_the_page(world: World) -> None:
    ann, bob, mal = world.person("Ann"), world.person("Bob"), world.person("Mal")
    group = world.fake.add_group("Durak club", [ann, bob], owner=ann)
    ref = await lobby_in(world, group, ann)
    assert (await page_state(world, mal, ref))["lobby"]["players"] == ["Ann"]
    lobby = world.newest(group, "New game")
    await world.tap(group, lobby, bob, "Join")
    await world.tap(group, lobby, ann, "Start")
    session = await world.session(group)
    assert session is not None
    table = game_ref(str(group.id), getattr(session.header, "game_id", ""))  # the table's "Open table"
    watched = await page_state(world, mal, table)
    assert (watched["phase"], watched["you"], watched["hand"]) == ("play", None, [])


async def test_the_join_link_of_a_forwarded_lobby_message_seats_nobody_outside_the_group(
    world: World,
) -> None:
    ann, mal = world.person("Ann"), world.person("Mal")
    group = world.fake.add_group("Durak club", [ann], owner=ann)
    await lobby_in(world, group, ann)
    await world.tap(group, world.newest(group, "New game"), mal, "Join")  # the deep link, followed
    assert await seated(world, group) == ["Ann"]
    said = [m.text for m in world.fake.chat(mal).messages.values() if not m.deleted]
    assert any(REFUSED in text for text in said), said  # told why, in their private chat


async def test_the_join_link_asks_telegram_only_about_people_it_has_not_seen_in_the_group(
    world: World,
) -> None:
    ann, bob, cat = world.person("Ann"), world.person("Bob"), world.person("Cat")
    group = world.fake.add_group("Durak club", [ann, bob, cat], owner=ann)
    await world.say(group, bob, "count me in")  # Bob writes in the group: he is in it
    await lobby_in(world, group, ann)
    asked = world.fake.calls["getChatMember"]
    await world.tap(group, world.newest(group, "New game"), bob, "Join")
    assert world.fake.calls["getChatMember"] == asked
    await world.tap(group, world.newest(group, "New game"), cat, "Join")  # never seen: Telegram is asked
    assert world.fake.calls["getChatMember"] == asked + 1
    assert await seated(world, group) == ["Ann", "Bob", "Cat"]
