"""The lobby's seat buttons on Discord: Add AI for seated players only, and Remove AI once an AI sits."""

from __future__ import annotations

from tests.discord.table import Table, custom_id_of, labels_of, text_of


async def test_remove_ai_is_a_button_on_the_lobby_and_frees_the_seat(table: Table) -> None:
    ann, eve = table.fake.add_user("Ann"), table.fake.add_user("Eve")
    await table.slash(ann, "new")
    await table.press_label(eve, await table.table_message(), "Add AI")
    assert "AI 1" not in text_of(await table.table_message())
    await table.press_label(ann, await table.table_message(), "Add AI")
    lobby = await table.table_message()
    assert "AI 1" in text_of(lobby) and "Remove AI" in labels_of(lobby)
    assert len(custom_id_of(lobby, "Remove AI")) <= 100
    await table.press_label(ann, lobby, "Remove AI")
    lobby = await table.table_message()
    assert "AI 1" not in text_of(lobby) and "Remove AI" not in labels_of(lobby)
