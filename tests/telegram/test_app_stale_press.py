"""A stale press from the Mini App (issue 27, point 5): the game moved between the page drawing a move and
the person tapping it (the turn timer, or the same person on a second device). The page shows the refusal
and the current state; the chat must not be written for it while the page is open: the presser's private
hand stays paused (a send or an edit there would notify them), and the group's table is not edited in the
middle of a bout while everyone plays on the app (docs/webapp.md, "Fewer chat messages").

Everything runs as `durak-bot run` does: the bot against the fake Bot API, the pages on PORT beside it, the
pages open on their live sockets (so the chat knows who is on the app), presses through `POST /api/press`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import pytest

from adapters.web.links import game_ref
from bot.context import ServiceConfig
from bot.session import Playing
from tests.fakes.telegram_model import FakeChat, FakeUser
from tests.telegram.world import World
from tests.web.initdata import make_init_data

OUT_OF_DATE = "That button is out of date: use the newest message."


def signed_in(world: World, person: FakeUser) -> str:
    return "tma " + make_init_data(world.fake.token, person.id, person.first_name)


def writes(world: World, chat: FakeChat | FakeUser) -> int:
    """Messages sent or edited in the chat so far."""
    return len(world.fake.send_times.get(chat.id, []))


class OnTheApp:
    """Ann and Bob's game in a group, both with the page open on it; the page's own HTTP calls."""

    def __init__(self, world: World, group: FakeChat, people: list[FakeUser], http: aiohttp.ClientSession):
        self.world, self.group, self.people, self.http = world, group, people, http
        self.base = world.config.webapp_url or ""

    async def state(self, person: FakeUser) -> dict[str, Any]:
        answer = await self.http.get(
            f"{self.base}/api/state", params={"ref": await self.ref()}, headers=self.auth(person)
        )
        state: dict[str, Any] = await answer.json()
        return state

    async def press(self, person: FakeUser, payload: str) -> dict[str, Any]:
        answer = await self.http.post(
            f"{self.base}/api/press", json={"payload": payload}, headers=self.auth(person)
        )
        pressed: dict[str, Any] = await answer.json()
        await self.world.settle()
        return pressed

    async def ref(self) -> str:
        session = await self.world.session(self.group)
        assert session is not None and isinstance(session.header, Playing)
        return game_ref(str(self.group.id), session.header.game_id)

    def auth(self, person: FakeUser) -> dict[str, str]:
        return {"Authorization": signed_in(self.world, person)}

    async def mover(self) -> FakeUser:
        session = await self.world.session(self.group)
        assert session is not None and session.game is not None and session.game.to_act is not None
        return self.people[session.game.to_act]


@pytest.fixture
async def on_the_app(
    world_factory: Callable[..., World],
) -> AsyncIterator[OnTheApp]:
    world = world_factory(service_config=ServiceConfig(ai_delay=0, app_platforms=frozenset({"tg"})), seed=3)
    url = f"http://127.0.0.1:{world.config.port}/app"
    world.bot.config = world.config = world.config.model_copy(
        update={"webapp_url": url, "webapp_name": "table"}
    )
    await world.start()
    ann, bob = world.person("Ann"), world.person("Bob")
    group = world.fake.add_group("Durak club", [ann, bob], owner=ann)
    await world.settle()
    await world.say(group, ann, "/newgame deck=24 timer=0")
    lobby = world.newest(group, "New game")
    await world.tap(group, lobby, bob, "Join")
    await world.tap(group, lobby, ann, "Start")
    async with aiohttp.ClientSession() as http:
        app = OnTheApp(world, group, [ann, bob], http)
        sockets = []
        for person in app.people:  # each page says hello and gets its state: it counts as open from then
            socket = await http.ws_connect(f"{app.base}/api/ws")
            await socket.send_json(
                {"type": "hello", "authorization": signed_in(world, person), "ref": await app.ref()}
            )
            assert (await socket.receive_json(timeout=5))["type"] == "state"
            sockets.append(socket)
        yield app
        for socket in sockets:
            await socket.close()


async def a_move_then_the_same_tap_again(app: OnTheApp) -> tuple[FakeUser, dict[str, Any]]:
    """The player to act plays a card on the page; then the same tap arrives again (their second device,
    drawn before the move): refused as out of date."""
    mover = await app.mover()
    move = next(action for action in (await app.state(mover))["actions"] if "card" in action)
    assert (await app.press(mover, move["payload"]))["ok"]
    return mover, await app.press(mover, move["payload"])


async def test_a_stale_press_on_the_page_leaves_the_pressers_private_chat_alone_while_their_page_is_open(
    on_the_app: OnTheApp,
) -> None:
    mover = await on_the_app.mover()
    before = writes(on_the_app.world, mover)
    mover, stale = await a_move_then_the_same_tap_again(on_the_app)
    assert not stale["ok"] and stale["reason"] == OUT_OF_DATE
    assert stale["state"]["step"] == 1  # the page is shown the game as it stands
    assert writes(on_the_app.world, mover) == before  # no hand sent or edited: it stays paused
    on_the_app.world.fake.assert_no_bad_requests()


async def test_a_stale_press_on_the_page_does_not_edit_the_group_table_mid_bout_while_everyone_is_on_the_app(
    on_the_app: OnTheApp,
) -> None:
    before = writes(on_the_app.world, on_the_app.group)
    _mover, stale = await a_move_then_the_same_tap_again(on_the_app)
    assert not stale["ok"]
    # mid-bout: the group's table waits for the bout's end
    assert writes(on_the_app.world, on_the_app.group) == before
