"""On Discord, `/durak leave` during a game asks the leaver alone (an ephemeral answer with the button), and
`/durak cancel` by a player of a game between people asks the same question (cancelling it counts as a
surrender, docs/reliability.md §12), while an admin who is not playing stops it and the channel is told who."""

from __future__ import annotations

from typing import Any

from tests.discord.table import Table, labels_of, text_of


async def started(table: Table) -> tuple[Any, Any]:
    ann, bob = table.fake.add_user("Ann"), table.fake.add_user("Bob")
    await table.slash(ann, "new", words="deck=24")
    await table.slash(bob, "join")
    await table.slash(ann, "start")
    return ann, bob


def channel_says(table: Table, text: str) -> bool:
    return any(text in text_of(m) for m in table.fake.public_messages(table.channel))


async def test_leave_asks_only_the_leaver_and_their_press_surrenders(table: Table) -> None:
    _ann, bob = await started(table)
    asked = await table.slash(bob, "leave")
    assert asked["data"]["flags"] == 64 and labels_of(asked["data"]) == ["Yes, surrender"]
    assert not channel_says(table, "surrendered")
    question = [m for m in table.fake.ephemeral_for(bob) if "Surrender?" in text_of(m)][-1]
    await table.press_label(bob, question, "Yes, surrender")
    assert channel_says(table, "Bob surrendered")


async def test_cancel_by_a_player_asks_only_them_whether_to_surrender(table: Table) -> None:
    ann, _bob = await started(table)
    asked = await table.slash(ann, "cancel")
    assert asked["data"]["flags"] == 64 and labels_of(asked["data"]) == ["Yes, surrender"]
    assert "cancelling counts as your surrender" in text_of(asked["data"])
    assert not channel_says(table, "cancelled")


async def test_cancel_by_an_admin_who_is_not_playing_names_who_cancelled_in_the_channel(table: Table) -> None:
    await started(table)
    await table.slash(table.fake.add_user("Boss", admin=True), "cancel")
    assert channel_says(table, "Boss cancelled the game.")
