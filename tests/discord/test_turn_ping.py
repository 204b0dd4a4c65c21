"""Your turn on Discord: the table's message mentions whose turn it is; when the turn comes to someone who
was waiting, the table is posted anew with a ping for that person only (Discord never notifies an edit) and
the old table deleted; quick answers only edit it, pinging nobody."""

from __future__ import annotations

from typing import Any

from bot.session import Playing
from tests.discord.table import Table
from tests.discord.test_game import play_one_move
from tests.fakes.discord_store import FakeUser


async def open_two_player_game(table: Table) -> list[FakeUser]:
    ann, bob = (table.fake.add_user(name) for name in ("Ann", "Bob"))
    await table.slash(ann, "new")
    await table.press_label(bob, await table.table_message(), "Join")
    await table.press_label(ann, await table.table_message(), "Start")
    return [ann, bob]


async def to_act(table: Table) -> str:
    session = await table.session()
    assert session is not None and isinstance(session.header, Playing) and session.game is not None
    return session.header.seats[session.game.to_act or 0].user_id


def table_posts(table: Table) -> list[dict[str, Any]]:
    """The bodies of the messages the bot posted in the channel (not interaction answers)."""
    return [r.body for r in table.fake.requests_to("POST", rf"/channels/{table.channel}/messages$")]


async def test_the_turn_after_a_wait_reposts_the_table_pinging_only_that_player(table: Table) -> None:
    players = await open_two_player_game(table)
    old = await table.table_message()
    table.skipped += 30  # the attacker thinks for half a minute
    await play_one_move(table, players, [])
    waiting = await to_act(table)
    new = await table.table_message()
    assert new["id"] != old["id"] and table.fake.messages[old["id"]].deleted
    assert new["content"] == f"<@{waiting}>"
    ping = table_posts(table)[-1]["allowed_mentions"]
    assert (
        [str(user) for user in ping["users"]] == [waiting] and ping["parse"] == [] and not ping.get("roles")
    )
    assert len(table.fake.public_messages(table.channel)) == 1, "still one table in the channel"


async def test_quick_answers_edit_the_table_and_ping_nobody(table: Table) -> None:
    players = await open_two_player_game(table)
    table.skipped += 30
    await play_one_move(table, players, [])  # the defender is pinged; from now on both answer at once
    posts = len(table_posts(table))
    message_id = (await table.table_message())["id"]
    for _ in range(4):
        await play_one_move(table, players, [])
        table_now = await table.table_message()
        assert table_now["content"] == f"<@{await to_act(table)}>", "the table names whose turn it is"
    assert len(table_posts(table)) == posts and (await table.table_message())["id"] == message_id
    edits = table.fake.requests_to("PATCH", rf"/channels/{table.channel}/messages/{message_id}")
    assert edits and all(edit.body["allowed_mentions"]["parse"] == [] for edit in edits)
    assert all(not edit.body["allowed_mentions"].get("users") for edit in edits)
