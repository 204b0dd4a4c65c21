"""The table message (merged edits, escaping, a deleted message, rate limits), turn timers and AI seats
delivered by the timer loop, and shards split over two clients sharing one Redis."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from typing import Any

from adapters.discord.app import DiscordSettings, DurakDiscordClient
from bot.context import ServiceConfig
from bot.effects import ShowTable
from bot.render.text import line, message
from bot.service import GameService
from bot.session import Playing
from storage.store import RedisGameStore
from tests.discord.table import Table, labels_of, text_of
from tests.fakes.discord_gateway import FakeDiscord

TABLE_EDIT = r"^/channels/\d+/messages/\d+$"


async def wait_until(condition: Callable[[], object], timeout: float = 5.0) -> None:
    """Poll a plain or async condition every 10 ms."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if inspect.isawaitable(result):
            result = await result
        if result:
            return
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.01)


async def timed_two_player_game(
    discord_api: FakeDiscord, store: RedisGameStore
) -> tuple[Table, Any, tuple[Any, Any], str]:
    """Ann and Bob dealt a game with a 20 s turn timer, the client running its own timer loop: the table,
    the client, the two people, and the user id of the seat to act."""
    table = Table(discord_api, store)
    client = await table.start(run_timer_loop=True, timer_poll=0.01)
    ann, bob = discord_api.add_user("Ann"), discord_api.add_user("Bob")
    await table.slash(ann, "new", words="timer=20")
    await table.press_label(bob, await table.table_message(), "Join")
    await table.press_label(ann, await table.table_message(), "Start")  # Ann gets her hand; Bob has none
    session = await table.session()
    assert session is not None and session.game is not None and isinstance(session.header, Playing)
    return table, client, (ann, bob), session.header.seats[session.game.to_act or 0].user_id


async def test_a_burst_of_table_changes_is_merged_into_few_edits_ending_with_the_newest(table: Table) -> None:
    assert table.client is not None
    delivery = table.client.delivery
    delivery.show_table(ShowTable(table.channel, message([line("Table 0")]), "g1", new_message=True))
    for n in range(1, 12):
        delivery.show_table(ShowTable(table.channel, message([line(f"Table {n}")]), "g1"))
    await table.settle()
    (posted,) = table.fake.public_messages(table.channel)
    assert posted["embeds"][0]["title"] == "Table 11"
    assert delivery.table_writes <= 2 and len(table.fake.requests_to("PATCH", TABLE_EDIT)) <= 1


async def test_names_are_escaped_so_they_cannot_format_the_table(table: Table) -> None:
    star, bob = table.fake.add_user("*Star*_"), table.fake.add_user("Bob")
    await table.slash(star, "new")
    await table.press_label(bob, await table.table_message(), "Join")
    description = (await table.table_message())["embeds"][0]["description"]
    assert r"\*Star\*\_" in description and "**2 players**" in description


async def test_a_deleted_table_message_is_posted_again_and_remembered(table: Table) -> None:
    ann, bob = table.fake.add_user("Ann"), table.fake.add_user("Bob")
    await table.slash(ann, "new")
    first = await table.table_message()
    table.fake.messages[first["id"]].deleted = True  # a moderator removed it
    await table.slash(bob, "join")
    second = await table.table_message()
    assert second["id"] != first["id"] and "Bob" in text_of(second)
    table.fake.inject_rate_limit("PATCH", TABLE_EDIT, retry_after=0.05)  # discord.py waits it out
    await table.press_label(ann, second, "Start")
    assert labels_of(await table.table_message()) == ["My hand"]
    assert (429, 0) in [(e[2], e[3]) for e in table.fake.errors]


async def test_ai_seats_move_through_the_timer_loop_and_the_table_follows(
    discord_api: FakeDiscord, store: RedisGameStore
) -> None:
    table = Table(discord_api, store, ai_delay=0.02)
    client = await table.start(run_timer_loop=True, timer_poll=0.01)
    ann = discord_api.add_user("Ann")
    await table.slash(ann, "new", words="deck=24")
    await table.press_label(ann, await table.table_message(), "Add AI")
    await table.press_label(ann, await table.table_message(), "Start")

    async def humans_turn_or_over() -> bool:
        session = await table.session()
        if session is None or not isinstance(session.header, Playing) or session.game is None:
            return True
        return session.game.to_act is not None and session.header.seats[session.game.to_act].ai is None

    from tests.discord.test_game import choose

    for _ in range(60):
        await wait_until(humans_turn_or_over)
        await client.flow.settled()
        session = await table.session()
        if session is None or not isinstance(session.header, Playing):
            break
        assert session.game is not None
        hand = table.hand_of(ann)
        if hand is None or f"|{session.game.step}|" not in str(hand["components"]):
            await table.press_label(ann, await table.table_message(), "My hand")
            hand = table.hand_of(ann)
        assert hand is not None
        code = choose(session.game, session.game.to_act or 0).code
        step = f"{session.game.step}.{session.game.history()}"
        await table.press(ann, hand, f"d:{table.channel}|{session.header.game_id}|{step}|{code}")
    await client.flow.settled()
    assert "Game over" in text_of(table.fake.public_messages(table.channel)[-1])
    assert any("🤖" in text for text in table.fake.channel_texts(table.channel))
    await discord_api.disconnect(client)


async def test_a_turn_timer_reminds_the_player_and_then_moves_for_them(
    discord_api: FakeDiscord, store: RedisGameStore
) -> None:
    table, client, (ann, bob), mover = await timed_two_player_game(discord_api, store)
    table.skipped = 6  # past the reminder (15 s before the deadline)
    if mover == ann.id:  # her live hand's token carries the reminder, seen only by her
        await wait_until(lambda: "seconds left" in text_of(discord_api.ephemeral_for(ann)[-1]))
    else:  # Bob never opened his hand: the reminder mentions him in the channel
        await wait_until(lambda: f"<@{bob.id}>" in str(discord_api.public_messages(table.channel)))
        assert "seconds left" in text_of(discord_api.public_messages(table.channel)[-1])
    table.skipped = 21  # the turn is over: the safe default move is played for them
    await wait_until(lambda: "ran out of time" in text_of(discord_api.public_messages(table.channel)[0]))
    await client.flow.settled()
    await discord_api.disconnect(client)


async def test_two_processes_each_run_half_the_shards_against_one_redis(
    discord_api: FakeDiscord, store: RedisGameStore
) -> None:
    guilds = [discord_api.add_guild(f"Club {n}", shard=(n, 2)) for n in range(2)]
    clients: list[DurakDiscordClient] = []
    for shard in range(2):
        service = GameService(store, ServiceConfig(ai_delay=0))
        settings = DiscordSettings(_env_file=None, shard_ids=str(shard), shard_count=2)  # type: ignore[call-arg]
        client = DurakDiscordClient(service, store, settings)
        assert client.shard_ids == [shard] and client.shard_count == 2
        await discord_api.connect(client)
        clients.append(client)
    await clients[0].sync_commands()
    ann, bob = discord_api.add_user("Ann"), discord_api.add_user("Bob")
    for guild in guilds:
        channel = guild.channel_ids[0]
        await discord_api.wait_for_callback(discord_api.slash(ann, channel, "durak", "new"))
        for client in clients:
            await client.flow.settled()
        (lobby,) = discord_api.public_messages(channel)
        join = next(
            b["custom_id"] for r in lobby["components"] for b in r["components"] if b["label"] == "Join"
        )
        await discord_api.wait_for_callback(discord_api.press(bob, lobby, join))
        for client in clients:
            await client.flow.settled()
        assert "Bob" in text_of(discord_api.public_messages(channel)[0])
    assert [c.delivery.table_writes for c in clients] == [2, 2]  # each wrote only its own guild's table
    for client in clients:
        await discord_api.disconnect(client)


async def test_joins_pressed_at_the_same_moment_all_end_up_on_the_table(table: Table) -> None:
    ann = table.fake.add_user("Ann")
    await table.slash(ann, "new")
    lobby = await table.table_message()
    join = next(b["custom_id"] for r in lobby["components"] for b in r["components"] if b["label"] == "Join")
    users = [table.fake.add_user(f"P{n}") for n in range(4)]
    presses = [table.fake.press(user, lobby, join) for user in users]
    await asyncio.gather(*(table.fake.wait_for_callback(press) for press in presses))
    await table.settle()
    text = text_of(await table.table_message())
    assert "5 players" in text and all(user.name in text for user in users)
    assert all(p.callback is not None and p.callback["data"]["content"] == "You joined." for p in presses)


async def test_a_discord_turn_reminder_is_deleted_once_its_turn_has_passed(
    discord_api: FakeDiscord, store: RedisGameStore
) -> None:
    table, client, (ann, bob), mover = await timed_two_player_game(discord_api, store)

    def reminders() -> list[str]:
        shown = (
            discord_api.ephemeral_for(ann) if mover == ann.id else discord_api.public_messages(table.channel)
        )
        return [text_of(m) for m in shown if "seconds left" in text_of(m) and "Your cards" not in text_of(m)]

    table.skipped = 6  # past the reminder (15 s before the deadline)
    await wait_until(reminders)
    table.skipped = 21  # the turn is over: the safe default move is played for them
    await wait_until(lambda: "ran out of time" in text_of(discord_api.public_messages(table.channel)[0]))
    await client.flow.settled()
    await wait_until(lambda: not reminders())
    await discord_api.disconnect(client)
