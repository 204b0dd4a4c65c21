"""The web front end's server in a test: a chat driven through `tests.bot.harness.Harness` (the chat's own
buttons), the page's routes over the same service on a local test server, and people signed in with
initData made by Telegram's rules (`tests.web.initdata`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from aiohttp import ClientWebSocketResponse
from aiohttp.test_utils import TestClient, TestServer

from adapters.web.links import game_ref
from adapters.web.server import WebFrontEnd
from bot.effects import Effect
from bot.inputs import User
from bot.queries import session_id
from bot.session import ChatSession
from storage import ChatRef
from tests.bot.harness import Harness
from tests.web.initdata import make_init_data

TOKEN = "7012345678:AAHq3xYzW9-secret_half_of_the_token_0123"
ANN = User("101", "Ann")
BOB = User("102", "Bob")
CAT = User("103", "Cat")
EVE = User("109", "Eve")  # in the group, never seated

Client = TestClient[Any, Any]


def auth(user: User) -> str:
    """The Authorization header of ``user``'s Mini App page (initData signed with the test token)."""
    return "tma " + make_init_data(TOKEN, int(user.id), user.name, user.lang)


class Delivered:
    """What the front end handed to the chat platform's adapter: (platform, chat id, effects) per press."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, list[Effect]]] = []

    async def __call__(self, platform: str, chat_id: str, effects: list[Effect]) -> None:
        self.calls.append((platform, chat_id, effects))


def front_end(harness: Harness, redis: Any, **options: Any) -> tuple[WebFrontEnd, Delivered]:
    delivered = Delivered()
    return WebFrontEnd(harness.service, redis, delivered, telegram_token=TOKEN, **options), delivered


@asynccontextmanager
async def served(front: WebFrontEnd) -> AsyncIterator[Client]:
    async with TestClient(TestServer(front.app())) as client:
        yield client


async def current_ref(harness: Harness) -> str:
    """The ref of the harness chat's lobby or game now."""
    record = await harness.store.load(ChatRef(harness.platform, harness.chat))
    assert record.state is not None
    return game_ref(harness.chat, session_id(ChatSession.decode(record.state)))


async def state_of(client: Client, user: User, ref: str) -> dict[str, Any]:
    answer = await client.get("/api/state", params={"ref": ref}, headers={"Authorization": auth(user)})
    assert answer.status == 200, await answer.text()
    state: dict[str, Any] = await answer.json()
    return state


async def press(client: Client, user: User, payload: str) -> dict[str, Any]:
    answer = await client.post("/api/press", json={"payload": payload}, headers={"Authorization": auth(user)})
    assert answer.status == 200, await answer.text()
    pressed: dict[str, Any] = await answer.json()
    return pressed


async def open_page(client: Client, user: User, ref: str) -> ClientWebSocketResponse:
    """A page's WebSocket after its hello."""
    socket = await client.ws_connect("/api/ws")
    await socket.send_json({"type": "hello", "authorization": auth(user), "ref": ref})
    return socket


async def next_state(socket: ClientWebSocketResponse, wait: float = 5.0) -> dict[str, Any]:
    message = await asyncio.wait_for(socket.receive_json(), wait)
    assert message["type"] == "state", message
    state: dict[str, Any] = message["state"]
    return state


async def state_at(socket: ClientWebSocketResponse, version: int, wait: float = 5.0) -> dict[str, Any]:
    """The first state the page gets at ``version`` or later."""
    while True:
        state = await next_state(socket, wait)
        if state["version"] >= version:
            return state
