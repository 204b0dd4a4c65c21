"""Context in the right place on Discord: a table buried under the channel's chatter is posted again at the
bottom (the old one deleted). Discord's message ids are timestamps, not counts, so the bot counts the
MESSAGE_CREATE events of the table's channel (the guild-messages intent; no privileged intent, no REST
call per message)."""

from __future__ import annotations

from tests.discord.table import Table
from tests.discord.test_game import play_one_move
from tests.discord.test_turn_ping import open_two_player_game
from tests.fakes.discord_store import FakeUser


async def chatter(table: Table, people: list[FakeUser], count: int) -> None:
    for n in range(count):
        table.fake.user_message(people[n % len(people)], table.channel, f"so, who is winning? ({n})")
    await table.settle()


async def test_a_buried_table_is_posted_again_below_the_chatter(table: Table) -> None:
    players = await open_two_player_game(table)
    old = await table.table_message()
    await chatter(table, players, 11)
    await play_one_move(table, players, [])
    moved = await table.table_message()
    assert moved["id"] != old["id"] and table.fake.messages[old["id"]].deleted
    newest = max(table.fake.public_messages(table.channel), key=lambda m: int(m["id"]))
    assert moved["id"] == newest["id"], "the table is at the bottom"
    ours = [m for m in table.fake.public_messages(table.channel) if m["author"]["id"] == table.fake.bot.id]
    assert ours == [moved], "still one table in the channel"


async def test_a_table_with_ten_messages_after_it_is_edited_in_place(table: Table) -> None:
    players = await open_two_player_game(table)
    old = await table.table_message()
    await chatter(table, players, 10)
    await play_one_move(table, players, [])
    assert (await table.table_message())["id"] == old["id"]
    assert table.fake.requests_to("PATCH", rf"/channels/{table.channel}/messages/{old['id']}")


async def test_the_bots_own_messages_in_the_channel_count(table: Table) -> None:
    players = await open_two_player_game(table)
    old = await table.table_message()
    await chatter(table, players, 6)
    for _ in range(5):  # a public answer is a message in the channel too
        await table.slash(players[0], "stats")
    await play_one_move(table, players, [])
    assert (await table.table_message())["id"] != old["id"]


async def test_a_repost_setting_of_zero_keeps_the_table_where_it_is(table: Table) -> None:
    assert table.client is not None
    table.client.delivery.chatter.after = 0  # DISCORD_REPOST_AFTER=0
    players = await open_two_player_game(table)
    old = await table.table_message()
    await chatter(table, players, 12)
    await play_one_move(table, players, [])
    assert (await table.table_message())["id"] == old["id"]
