"""One page that stops reading costs its chat nothing: the other pages keep getting every state, and the page
that fell behind is closed (and counts as closed: the chat gives its player back what the page held back).

A page that stops reading is a device whose page went to sleep, or a hostile client: a raw socket that says
hello and then never reads, with a tiny receive buffer so that the server's backlog for it builds quickly.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import struct
from functools import partial
from typing import Any

import pytest

from adapters.web.live import CLOSE_TOO_SLOW
from adapters.web.server import WebFrontEnd
from bot.decision import GAME_TTL
from bot.effects import Effect, ShowHand
from bot.inputs import TimerDue
from bot.timers import resume_on_close
from storage import ChatRef
from storage.presence import open_pages
from storage.store import RedisGameStore
from tests.bot.harness import Harness
from tests.bot.stacked import stacked_game
from tests.web.pages import (
    ANN,
    BOB,
    Client,
    auth,
    current_ref,
    front_end,
    next_state,
    open_page,
    served,
    state_at,
)

HANDS = ["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH"]
MOST_SAVES = 8000  # saves before giving up on the silent page being closed (unbounded buffers held ~5,500)
SEND_TIMEOUT = 1.0  # seconds a state may wait to leave for a page in these tests (a bound, never measured)


class SilentPage:
    """A page's WebSocket that says hello and then reads nothing: a raw TCP socket, read only on demand."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.unread = b""

    @classmethod
    async def open(cls, client: Client, hello: dict[str, Any]) -> SilentPage:
        loop = asyncio.get_running_loop()
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connecting: a small window
        sock.setblocking(False)
        await loop.sock_connect(sock, (client.host, client.port))
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET /api/ws HTTP/1.1\r\nHost: {client.host}:{client.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        await loop.sock_sendall(sock, request.encode())
        page = cls(sock)
        while b"\r\n\r\n" not in page.unread:  # the handshake's answer, and nothing after it
            page.unread += await loop.sock_recv(sock, 1)
        page.unread = b""
        await loop.sock_sendall(sock, masked_text_frame(json.dumps(hello).encode()))
        return page

    async def close_code(self) -> int | None:
        """Read the backlog (finally) up to the server's close frame: its code; None if the connection just
        ended."""
        while True:
            frame = await self._frame()
            if frame is None:
                return None
            opcode, payload = frame
            if opcode == 8:
                return int(struct.unpack("!H", payload[:2])[0]) if len(payload) >= 2 else None

    async def _frame(self) -> tuple[int, bytes] | None:
        head = await self._exactly(2)
        if head is None:
            return None
        length = head[1] & 0x7F
        if length >= 126:
            extended = await self._exactly(2 if length == 126 else 8)
            if extended is None:
                return None
            length = int.from_bytes(extended, "big")
        payload = await self._exactly(length)
        return None if payload is None else (head[0] & 0x0F, payload)

    async def _exactly(self, count: int) -> bytes | None:
        loop = asyncio.get_running_loop()
        while len(self.unread) < count:
            try:
                more = await loop.sock_recv(self.sock, 65536)
            except ConnectionError:
                return None
            if not more:
                return None
            self.unread += more
        taken, self.unread = self.unread[:count], self.unread[count:]
        return taken

    def close(self) -> None:
        self.sock.close()


def masked_text_frame(payload: bytes) -> bytes:
    """One client-to-server text frame (clients mask what they send)."""
    mask = os.urandom(4)
    size = len(payload)
    head = bytes([0x81]) + (
        bytes([0x80 | size]) if size < 126 else bytes([0x80 | 126]) + struct.pack("!H", size)
    )
    return head + mask + bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))


@pytest.fixture
def harness(fake_redis: Any) -> Harness:
    return Harness(RedisGameStore(fake_redis))


async def saved_again(harness: Harness) -> int:
    """The game goes on: the chat saved once more (its state unchanged, its version one higher)."""
    chat = ChatRef(harness.platform, harness.chat)
    record = await harness.store.load(chat)
    version = await harness.store.save(chat, record.version, record.state, ttl=GAME_TTL)
    assert version is not None
    return version


def pages_here(front: WebFrontEnd) -> int:
    return sum(len(pages) for pages in front.hub.pages.values())


async def test_a_page_that_stops_reading_does_not_delay_the_other_pages_of_its_chat(
    harness: Harness, fake_redis: Any
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis)
    front.hub.send_timeout = SEND_TIMEOUT
    async with served(front) as client:
        ref = await current_ref(harness)
        anns, bobs = await open_page(client, ANN, ref), await open_page(client, BOB, ref)
        await next_state(anns), await next_state(bobs)
        silent = await SilentPage.open(client, {"type": "hello", "authorization": auth(ANN), "ref": ref})
        try:
            for _ in range(250):
                if pages_here(front) == 3:
                    break
                await asyncio.sleep(0.02)
            assert pages_here(front) == 3, "the silent page's hello was not accepted"
            for _ in range(MOST_SAVES):
                version = await saved_again(harness)
                # every save reaches the pages that read, however far behind the silent one is
                assert (await state_at(anns, version))["version"] == version
                assert (await state_at(bobs, version))["version"] == version
                if pages_here(front) == 2:
                    break  # the silent page was closed for falling behind
            assert pages_here(front) == 2, "the page that reads nothing was never closed"
            assert await asyncio.wait_for(silent.close_code(), 10) == CLOSE_TOO_SLOW
        finally:
            silent.close()
        again = await open_page(client, ANN, ref)  # Ann's second page comes back: current at once
        assert (await next_state(again))["version"] == version == await harness.version()
        for page in (anns, bobs, again):
            await page.close()


async def test_a_page_closed_for_falling_behind_counts_as_closed_and_the_chat_resumes_its_hand(
    harness: Harness, fake_redis: Any
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis)
    front.hub.send_timeout = SEND_TIMEOUT
    chat = ChatRef("tg", harness.chat)
    resumed: list[Effect] = []

    async def deliver(due: TimerDue, effects: list[Effect]) -> None:
        resumed.extend(effects)

    harness.service.on_app = partial(open_pages, fake_redis)  # as `durak-bot run` builds the service
    front.hub.listen(resume_on_close(harness.service, deliver))
    async with served(front) as client:
        ref = await current_ref(harness)
        anns = await open_page(client, ANN, ref)
        await next_state(anns)
        silent = await SilentPage.open(client, {"type": "hello", "authorization": auth(BOB), "ref": ref})
        try:
            for _ in range(250):
                if await open_pages(fake_redis, chat) == {ANN.id, BOB.id}:
                    break
                await asyncio.sleep(0.02)
            assert await open_pages(fake_redis, chat) == {ANN.id, BOB.id}, "Bob's silent page never counted"
            for _ in range(MOST_SAVES):
                version = await saved_again(harness)
                assert (await state_at(anns, version))["version"] == version
                if await open_pages(fake_redis, chat) == {ANN.id}:
                    break
            assert await open_pages(fake_redis, chat) == {ANN.id}, "Bob's silent page still counts as open"
        finally:
            silent.close()
        await anns.close()
    assert any(isinstance(effect, ShowHand) and effect.user_id == BOB.id for effect in resumed)
