"""An Activity page is signed in only by an authorization code Discord gave out for this application, for a
person who is in the Activity's instance, and is shown the game of the instance's channel: one test per way
it can be wrong, against Discord's endpoints as `tests.fakes.discord_oauth` plays them."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from adapters.web.discord_auth import ActivitySessions, ActivityUser
from bot.platforms import DISCORD
from storage.store import RedisGameStore
from tests.bot.harness import Harness
from tests.fakes.discord_oauth import CODE_LIFETIME, FakeDiscordOAuth, Instance
from tests.web.activity import (
    CHANNEL,
    CLIENT_ID,
    CLIENT_SECRET,
    GUILD,
    activity_pages,
    channel_harness,
    discord_side,
)
from tests.web.pages import ANN, BOB, EVE, Client, current_ref

SHORT = "deck=24 timer=0"


@pytest.fixture
async def harness(fake_redis: Any) -> Harness:
    people = channel_harness(fake_redis)
    await people.command(ANN, "newgame", SHORT)
    await people.tap(BOB, "Join")
    await people.tap(ANN, "Start")
    return people


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscordOAuth]:
    async with discord_side(ANN, BOB, EVE) as side:
        yield side


@pytest.fixture
async def client(harness: Harness, fake_redis: Any, fake: FakeDiscordOAuth) -> AsyncIterator[Client]:
    pages, _ = activity_pages(harness, fake_redis, fake)
    async with TestClient(TestServer(pages.app())) as served:
        yield served


async def sign_in(client: Client, code: str, instance_id: str) -> tuple[int, dict[str, Any]]:
    answer = await client.post("/api/discord/session", json={"code": code, "instance_id": instance_id})
    body: dict[str, Any] = await answer.json()
    return answer.status, body


async def test_a_code_from_discord_signs_a_player_in_to_the_game_of_the_instances_channel(
    client: Client, fake: FakeDiscordOAuth, harness: Harness
) -> None:
    instance = fake.launch(CHANNEL, GUILD, ANN.id)
    status, body = await sign_in(client, fake.authorize(ANN.id), instance)
    assert status == 200, body
    assert body["ref"] == await current_ref(harness)
    assert body["access_token"] in fake.tokens  # for the SDK's authenticate
    state = await client.get(
        "/api/state", params={"ref": body["ref"]}, headers={"Authorization": f"discord {body['token']}"}
    )
    shown = await state.json()
    assert state.status == 200 and len(shown["hand"]) == 6 and shown["you"] == 0  # Ann, seat 0


async def test_the_page_learns_the_client_id_it_authorizes_with(client: Client) -> None:
    answer = await client.get("/api/discord/config")
    assert await answer.json() == {"client_id": CLIENT_ID}


async def test_a_replayed_code_is_refused(client: Client, fake: FakeDiscordOAuth) -> None:
    instance = fake.launch(CHANNEL, GUILD, ANN.id)
    code = fake.authorize(ANN.id)
    assert (await sign_in(client, code, instance))[0] == 200
    status, body = await sign_in(client, code, instance)
    assert status == 401 and "sign-in could not be checked" in body["error"]


async def test_a_forged_code_is_refused(client: Client, fake: FakeDiscordOAuth) -> None:
    instance = fake.launch(CHANNEL, GUILD, ANN.id)
    status, body = await sign_in(client, "forged-code-0123456789", instance)
    assert status == 401 and "sign-in could not be checked" in body["error"]
    assert [path for _, path, _ in fake.requests] == ["/oauth2/token"]  # nothing asked past the refusal


async def test_an_expired_code_is_refused(client: Client, fake: FakeDiscordOAuth) -> None:
    instance = fake.launch(CHANNEL, GUILD, ANN.id)
    code = fake.authorize(ANN.id)
    fake.codes[code].until -= CODE_LIFETIME + 1
    assert (await sign_in(client, code, instance))[0] == 401


async def test_an_access_token_expired_before_it_names_the_person_is_refused(
    client: Client, fake: FakeDiscordOAuth
) -> None:
    instance = fake.launch(CHANNEL, GUILD, ANN.id)
    fake.token_lifetime = 0  # Discord's access token lapses before our /users/@me
    status, body = await sign_in(client, fake.authorize(ANN.id), instance)
    assert status == 401 and "sign-in could not be checked" in body["error"]
    assert [path for _, path, _ in fake.requests] == ["/oauth2/token", "/users/@me"]


async def test_a_person_not_in_the_instance_is_refused(client: Client, fake: FakeDiscordOAuth) -> None:
    instance = fake.launch(CHANNEL, GUILD, ANN.id)
    status, body = await sign_in(client, fake.authorize(EVE.id), instance)
    assert status == 401 and "another Activity" in body["error"]


async def test_an_instance_that_is_not_running_is_refused(client: Client, fake: FakeDiscordOAuth) -> None:
    fake.launch(CHANNEL, GUILD, ANN.id)
    status, _ = await sign_in(client, fake.authorize(ANN.id), "i-999-gc-1-2")
    assert status == 401


async def test_an_instance_in_a_channel_with_no_game_says_how_to_start_one(
    client: Client, fake: FakeDiscordOAuth
) -> None:
    instance = fake.launch("880000000000000999", GUILD, ANN.id)
    status, body = await sign_in(client, fake.authorize(ANN.id), instance)
    assert status == 404 and "/durak new" in body["error"]


async def test_a_group_dm_instance_signs_in_to_the_dms_game(fake_redis: Any, fake: FakeDiscordOAuth) -> None:
    group_dm = "660000000000000001"
    people = Harness(RedisGameStore(fake_redis), platform=DISCORD, chat=group_dm)
    await people.command(ANN, "newgame", SHORT)
    pages, _ = activity_pages(people, fake_redis, fake)
    async with TestClient(TestServer(pages.app())) as served:
        instance = fake.launch(group_dm, None, ANN.id)
        status, body = await sign_in(served, fake.authorize(ANN.id), instance)
    assert status == 200 and body["ref"] == await current_ref(people)


async def test_a_malformed_sign_in_is_a_400(client: Client) -> None:
    for body in ({}, {"code": 5, "instance_id": "x"}, {"code": "c" * 300, "instance_id": "x"}):
        answer = await client.post("/api/discord/session", json=body)
        assert answer.status == 400
    answer = await client.post("/api/discord/session", data=b"{")
    assert answer.status == 400


async def test_no_code_or_token_reaches_the_log(
    client: Client, fake: FakeDiscordOAuth, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    instance = fake.launch(CHANNEL, GUILD, ANN.id)
    code = fake.authorize(ANN.id)
    _, body = await sign_in(client, code, instance)
    await sign_in(client, code, instance)  # refused: logged by reason
    secrets = [code, body["access_token"], body["token"], CLIENT_SECRET]
    assert not [record for record in caplog.records if any(s in record.getMessage() for s in secrets)]
    assert any("refused: code" in record.getMessage() for record in caplog.records)


def test_a_session_token_altered_or_lapsed_signs_nobody_in() -> None:
    now = [1_000_000.0]
    sessions = ActivitySessions(CLIENT_SECRET, clock=lambda: now[0], lifetime=60)
    token = sessions.issue(ActivityUser(ANN.id, ANN.name, "en"), "i-1-gc-2-3", CHANNEL)
    viewer = sessions.viewer_of(token)
    assert viewer is not None and (viewer.platform, viewer.user.id) == (DISCORD, ANN.id)
    assert (viewer.chat_id, viewer.instance_id) == (CHANNEL, "i-1-gc-2-3")
    payload, _, signature = token.partition(".")
    forged = ActivitySessions("another-secret").issue(
        ActivityUser(BOB.id, BOB.name, "en"), "i-1-gc-2-3", CHANNEL
    )
    assert sessions.viewer_of(forged) is None
    assert sessions.viewer_of(forged.partition(".")[0] + "." + signature) is None
    assert sessions.viewer_of(payload + "." + "0" * 64) is None
    now[0] += 61
    assert sessions.viewer_of(token) is None


async def test_an_instance_id_with_twenty_digit_ids_signs_in(fake_redis: Any, fake: FakeDiscordOAuth) -> None:
    """Discord's ids grow to 20 digits; an instance id holding three of them is 67 characters (seen on main:
    refused, its limit was today's longest id)."""
    channel, guild = "12345678901234567890", "98765432109876543210"
    people = Harness(RedisGameStore(fake_redis), platform=DISCORD, chat=channel)
    await people.command(ANN, "newgame", SHORT)
    pages, _ = activity_pages(people, fake_redis, fake)
    instance = f"i-{'1' * 20}-gc-{guild}-{channel}"
    fake.instances[instance] = Instance(channel, guild, [ANN.id])
    async with TestClient(TestServer(pages.app())) as served:
        status, body = await sign_in(served, fake.authorize(ANN.id), instance)
    assert len(instance) == 67 and status == 200, body


async def test_the_instance_id_is_sent_to_discord_as_one_segment_of_its_path(
    client: Client, fake: FakeDiscordOAuth
) -> None:
    instance = fake.launch(CHANNEL, GUILD, ANN.id)
    assert (await sign_in(client, fake.authorize(ANN.id), instance))[0] == 200
    asked = [path for _, path, _ in fake.requests if "activity-instances" in path]
    assert asked == [f"/applications/{CLIENT_ID}/activity-instances/{instance}"]
