"""A flood of sign-ins costs Discord a bounded number of calls (adapters/web/sign_in_gate.py): junk is refused
before any call, one address and the whole process each have a budget, a 429 from Discord stops every call
for as long as it asks, and only a few exchanges are in flight at once. Seen on main: 600 junk requests from
one address in 1.1 s made 600 calls to Discord's /oauth2/token, 550 of them after Discord answered 429."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from adapters.web.discord_auth import Breaker, DiscordOAuth
from adapters.web.discord_pages import DiscordPages
from adapters.web.sign_in_gate import ADDRESS_BURST, MAX_EXCHANGES, PROCESS_BURST, SignInGate
from tests.bot.harness import Harness
from tests.fakes.discord_oauth import FakeDiscordOAuth
from tests.web.activity import (
    BOT_TOKEN,
    CHANNEL,
    CLIENT_ID,
    CLIENT_SECRET,
    GUILD,
    Clock,
    channel_harness,
    discord_side,
)
from tests.web.pages import ANN, EVE, Client, Delivered

FLOOD = 600


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def fake(clock: Clock) -> AsyncIterator[FakeDiscordOAuth]:
    async with discord_side(ANN, EVE) as side:
        side.clock = clock
        yield side


@pytest.fixture
async def client(fake_redis: Any, fake: FakeDiscordOAuth, clock: Clock) -> AsyncIterator[Client]:
    harness: Harness = channel_harness(fake_redis)
    await harness.command(ANN, "newgame", "deck=24 timer=0")
    oauth = DiscordOAuth(fake.api_base, CLIENT_ID, CLIENT_SECRET, BOT_TOKEN, breaker=Breaker(clock))
    pages = DiscordPages(harness.service, fake_redis, Delivered(), oauth, gate=SignInGate(clock))
    async with TestClient(TestServer(pages.app())) as served:
        yield served


def token_calls(fake: FakeDiscordOAuth) -> int:
    return sum(path == "/oauth2/token" for _, path, _ in fake.requests)


def junk_code() -> str:
    """Shaped like Discord's codes, but never given out: each one is an invalid request at Discord."""
    return secrets.token_urlsafe(22)


async def sign_in(client: Client, code: str, instance: str, address: str | None = None) -> int:
    headers = {"X-Forwarded-For": address} if address else {}
    answer = await client.post(
        "/api/discord/session", json={"code": code, "instance_id": instance}, headers=headers
    )
    return answer.status


async def flood(client: Client, instance: str, addresses: list[str | None]) -> list[int]:
    return await asyncio.gather(*(sign_in(client, junk_code(), instance, address) for address in addresses))


async def test_what_is_not_shaped_like_a_code_never_reaches_discord(
    client: Client, fake: FakeDiscordOAuth
) -> None:
    instance = fake.launch(CHANNEL, GUILD, ANN.id)
    junk = ["", "x", "not a code!", "a" * 65, "../../users/@me", "код-что-угодно-12345"]
    statuses = [await sign_in(client, code, instance) for code in junk * (FLOOD // len(junk))]
    assert set(statuses) == {400} and fake.requests == []


async def test_an_instance_id_that_is_not_discords_never_reaches_discord(
    client: Client, fake: FakeDiscordOAuth
) -> None:
    for instance in ("../../../users/@me", "i-1/../../x", "i-1?x=1", "i-1#x", "i" * 161):
        assert await sign_in(client, junk_code(), instance) == 400
    assert fake.requests == []


async def test_a_flood_from_one_address_reaches_discord_only_within_that_addresses_budget(
    client: Client, fake: FakeDiscordOAuth
) -> None:
    statuses = await flood(client, fake.launch(CHANNEL, GUILD, ANN.id), ["203.0.113.7"] * FLOOD)
    assert token_calls(fake) == ADDRESS_BURST
    assert statuses.count(429) == FLOOD - ADDRESS_BURST and statuses.count(401) == ADDRESS_BURST


async def test_a_flood_from_many_addresses_reaches_discord_only_within_the_processs_budget(
    client: Client, fake: FakeDiscordOAuth
) -> None:
    addresses: list[str | None] = [f"198.51.{n // 250}.{n % 250}" for n in range(FLOOD)]
    await flood(client, fake.launch(CHANNEL, GUILD, ANN.id), addresses)
    assert token_calls(fake) == PROCESS_BURST


async def test_a_429_from_discord_stops_every_call_until_its_retry_after_has_passed(
    client: Client, fake: FakeDiscordOAuth, clock: Clock
) -> None:
    instance = fake.launch(CHANNEL, GUILD, ANN.id)
    fake.rate_limit(30)
    addresses = [f"192.0.2.{n}" for n in range(10)]
    statuses = [await sign_in(client, junk_code(), instance, address) for address in addresses]
    assert token_calls(fake) == 1 and set(statuses) == {429}
    clock.now += 31
    assert await sign_in(client, fake.authorize(ANN.id), instance, "192.0.2.200") == 200
    assert token_calls(fake) == 2


async def test_only_a_few_exchanges_are_in_flight_at_discord_at_once(
    client: Client, fake: FakeDiscordOAuth
) -> None:
    fake.token_delay = 0.2
    await flood(client, fake.launch(CHANNEL, GUILD, ANN.id), [f"192.0.2.{n}" for n in range(PROCESS_BURST)])
    assert fake.most_in_flight == MAX_EXCHANGES
