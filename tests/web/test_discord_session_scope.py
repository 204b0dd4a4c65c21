"""An Activity's session opens the game of its instance's channel and nothing else, and only while its person
is in that instance (docs/discord.md, "The Activity": what a sign-in opens).

Eve signs in through an Activity she launched in a server of her own. A ref is in every button's custom_id,
so she may hold the refs of other channels' games: the running game of another server, a third server's
lobby, a finished game of a channel she once played in. Every route answers her 404 for those, as if they
were not there; and when she leaves her own instance, her session stops working there too."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from adapters.web.discord_auth import SESSION_LIFETIME
from adapters.web.links import replay_ref
from bot.platforms import DISCORD
from bot.queries import session_id
from bot.session import ChatSession
from storage import ChatRef
from storage.store import RedisGameStore
from tests.bot.harness import Harness, button
from tests.fakes.discord_oauth import FakeDiscordOAuth
from tests.web.activity import CHANNEL, Clock, activity_pages, discord_side
from tests.web.pages import ANN, BOB, EVE, Client, current_ref

SHORT = "deck=24 timer=0"
OTHER_SERVER_CHANNEL = "880000000000000002"  # a running game Eve is not in
THIRD_SERVER_CHANNEL = "880000000000000003"  # a lobby waiting for players
EVE_SERVER = "770000000000000009"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscordOAuth]:
    async with discord_side(ANN, BOB, EVE) as side:
        yield side


def harness_for(redis: Any, channel: str) -> Harness:
    return Harness(RedisGameStore(redis), platform=DISCORD, chat=channel)


@pytest.fixture
async def eves_channel(fake_redis: Any) -> Harness:
    """Eve's own channel, with a lobby she opened."""
    people = harness_for(fake_redis, CHANNEL)
    await people.command(EVE, "newgame", SHORT)
    return people


@pytest.fixture
async def running(fake_redis: Any) -> Harness:
    people = harness_for(fake_redis, OTHER_SERVER_CHANNEL)
    await people.command(ANN, "newgame", SHORT)
    await people.tap(BOB, "Join")
    await people.tap(ANN, "Start")
    return people


@pytest.fixture
async def lobby(fake_redis: Any) -> Harness:
    people = harness_for(fake_redis, THIRD_SERVER_CHANNEL)
    await people.command(ANN, "newgame", SHORT)
    return people


@pytest.fixture
async def client(
    eves_channel: Harness, fake_redis: Any, fake: FakeDiscordOAuth, clock: Clock
) -> AsyncIterator[Client]:
    pages, _ = activity_pages(eves_channel, fake_redis, fake, clock=clock, recheck=0.05)
    async with TestClient(TestServer(pages.app())) as served:
        yield served


async def signed_in(client: Client, fake: FakeDiscordOAuth, instance: str, person: Any = EVE) -> str:
    answer = await client.post(
        "/api/discord/session", json={"code": fake.authorize(person.id), "instance_id": instance}
    )
    body = await answer.json()
    assert answer.status == 200, body
    return f"discord {body['token']}"


async def state_status(client: Client, auth: str, ref: str) -> int:
    return (await client.get("/api/state", params={"ref": ref}, headers={"Authorization": auth})).status


async def hello_answer(client: Client, auth: str, ref: str) -> dict[str, Any]:
    socket = await client.ws_connect("/api/ws")
    await socket.send_json({"type": "hello", "authorization": auth, "ref": ref})
    message: dict[str, Any] = await socket.receive_json()
    await socket.close()
    return message


async def test_the_session_shows_the_game_of_its_own_instances_channel(
    client: Client, fake: FakeDiscordOAuth, eves_channel: Harness
) -> None:
    auth = await signed_in(client, fake, fake.launch(CHANNEL, EVE_SERVER, EVE.id))
    ref = await current_ref(eves_channel)
    assert await state_status(client, auth, ref) == 200
    assert (await hello_answer(client, auth, ref))["type"] == "state"


async def test_another_servers_running_game_is_not_there_for_the_session(
    client: Client, fake: FakeDiscordOAuth, running: Harness
) -> None:
    auth = await signed_in(client, fake, fake.launch(CHANNEL, EVE_SERVER, EVE.id))
    ref = await current_ref(running)
    assert await state_status(client, auth, ref) == 404
    refused = await hello_answer(client, auth, ref)
    assert (refused["type"], refused["status"]) == ("error", 404)


async def test_a_third_servers_lobby_cannot_be_joined_from_the_session(
    client: Client, fake: FakeDiscordOAuth, lobby: Harness
) -> None:
    auth = await signed_in(client, fake, fake.launch(CHANNEL, EVE_SERVER, EVE.id))
    join = button(lobby.screen.table, "Join").payload
    answer = await client.post("/api/press", json={"payload": join}, headers={"Authorization": auth})
    assert answer.status == 404
    record = await lobby.store.load(ChatRef(DISCORD, THIRD_SERVER_CHANNEL))
    assert record.state is not None
    assert [seat.user_id for seat in ChatSession.decode(record.state).header.seats] == [ANN.id]


async def test_a_game_eve_played_in_another_channel_is_not_there_for_replay_or_analysis(
    client: Client, fake: FakeDiscordOAuth, fake_redis: Any
) -> None:
    played = harness_for(fake_redis, OTHER_SERVER_CHANNEL)
    await played.command(EVE, "newgame", SHORT)
    await played.tap(ANN, "Join")
    await played.tap(EVE, "Start")
    game_id = session_id(
        ChatSession.decode((await played.store.load(ChatRef(DISCORD, OTHER_SERVER_CHANNEL))).state or "")
    )
    await played.surrender(EVE)  # the game ends, and its archive holds Eve as a player
    ref = replay_ref(OTHER_SERVER_CHANNEL, game_id)
    auth = await signed_in(client, fake, fake.launch(CHANNEL, EVE_SERVER, EVE.id))
    for route in ("/api/replay", "/api/analysis"):
        answer = await client.get(route, params={"ref": ref}, headers={"Authorization": auth})
        assert answer.status == 404, route


async def test_leaving_the_instance_ends_the_session(
    client: Client, fake: FakeDiscordOAuth, eves_channel: Harness, clock: Clock
) -> None:
    instance = fake.launch(CHANNEL, EVE_SERVER, EVE.id)
    auth = await signed_in(client, fake, instance)
    ref = await current_ref(eves_channel)
    fake.instances[instance].users.remove(EVE.id)
    clock.now += 60  # past what this process keeps of an instance's people
    answer = await client.get("/api/state", params={"ref": ref}, headers={"Authorization": auth})
    assert answer.status == 401 and "left the Activity" in (await answer.json())["error"]
    assert (await hello_answer(client, auth, ref))["status"] == 401


async def test_an_open_page_is_closed_once_its_person_left_the_instance(
    client: Client, fake: FakeDiscordOAuth, eves_channel: Harness, clock: Clock
) -> None:
    instance = fake.launch(CHANNEL, EVE_SERVER, EVE.id)
    auth = await signed_in(client, fake, instance)
    socket = await client.ws_connect("/api/ws")
    await socket.send_json({"type": "hello", "authorization": auth, "ref": await current_ref(eves_channel)})
    assert (await socket.receive_json())["type"] == "state"
    fake.instances[instance].users.remove(EVE.id)
    clock.now += 60
    told = await asyncio.wait_for(socket.receive_json(), 5)
    await asyncio.wait_for(socket.receive(), 5)  # the close frame
    assert (told["type"], told["status"]) == ("error", 401) and "left the Activity" in told["error"]
    assert socket.close_code == 4401


async def test_an_ended_instance_ends_the_session(
    client: Client, fake: FakeDiscordOAuth, eves_channel: Harness, clock: Clock
) -> None:
    instance = fake.launch(CHANNEL, EVE_SERVER, EVE.id)
    auth = await signed_in(client, fake, instance)
    del fake.instances[instance]
    clock.now += 60
    assert await state_status(client, auth, await current_ref(eves_channel)) == 401


async def test_join_is_checked_against_the_instances_people(
    client: Client, fake: FakeDiscordOAuth, eves_channel: Harness, clock: Clock
) -> None:
    instance = fake.launch(CHANNEL, EVE_SERVER, EVE.id, BOB.id)
    auth = await signed_in(client, fake, instance, BOB)
    fake.instances[instance].users.remove(BOB.id)
    clock.now += 60
    join = button(eves_channel.screen.table, "Join").payload
    answer = await client.post("/api/press", json={"payload": join}, headers={"Authorization": auth})
    assert answer.status == 401
    record = await eves_channel.store.load(ChatRef(DISCORD, CHANNEL))
    assert record.state is not None
    assert [seat.user_id for seat in ChatSession.decode(record.state).header.seats] == [EVE.id]


async def test_the_people_of_an_instance_are_asked_of_discord_at_most_once_in_a_while(
    client: Client, fake: FakeDiscordOAuth, eves_channel: Harness
) -> None:
    auth = await signed_in(client, fake, fake.launch(CHANNEL, EVE_SERVER, EVE.id))
    ref = await current_ref(eves_channel)
    asked = sum("activity-instances" in path for _, path, _ in fake.requests)
    for _ in range(5):
        assert await state_status(client, auth, ref) == 200
    assert sum("activity-instances" in path for _, path, _ in fake.requests) == asked


async def test_a_session_lapses_unless_renewed_while_its_person_is_in_the_instance(
    client: Client, fake: FakeDiscordOAuth, eves_channel: Harness, clock: Clock
) -> None:
    """A session token lasts `SESSION_LIFETIME`; the page renews it while its person is in the instance."""
    instance = fake.launch(CHANNEL, EVE_SERVER, EVE.id)
    auth = await signed_in(client, fake, instance)
    ref = await current_ref(eves_channel)
    clock.now += SESSION_LIFETIME / 2
    renewed = await client.post("/api/discord/renew", headers={"Authorization": auth})
    assert renewed.status == 200
    new_auth = f"discord {(await renewed.json())['token']}"
    clock.now += SESSION_LIFETIME / 2 + 1
    assert await state_status(client, auth, ref) == 401, "the first token lapsed"
    assert await state_status(client, new_auth, ref) == 200
    fake.instances[instance].users.remove(EVE.id)
    clock.now += 60
    assert (await client.post("/api/discord/renew", headers={"Authorization": new_auth})).status == 401
