"""The lobby's seat buttons on Telegram: Add AI for seated players only, and Remove AI once an AI sits."""

from __future__ import annotations

from tests.telegram.world import World


async def test_remove_ai_is_a_callback_button_on_the_lobby_and_frees_the_seat(world: World) -> None:
    ann, eve = world.person("Ann"), world.person("Eve")
    group = world.fake.add_group("Club", [ann, eve], owner=ann)
    await world.say(group, ann, "/newgame")
    lobby = world.newest(group, "New game")
    refused = await world.tap(group, lobby, eve, "Add AI")
    assert refused.text == "Join the game first to add an AI." and refused.show_alert
    await world.tap(group, lobby, ann, "Add AI")
    shown = world.fake.message(group, lobby.message_id)
    remove = next(b for b in shown.buttons() if b["text"] == "Remove AI")
    assert remove["callback_data"].endswith("|D") and len(remove["callback_data"].encode()) <= 64
    assert "AI 1" in shown.text
    await world.tap(group, lobby, ann, "Remove AI")
    shown = world.fake.message(group, lobby.message_id)
    assert "AI 1" not in shown.text and "Remove AI" not in [b["text"] for b in shown.buttons()]
    world.fake.assert_no_bad_requests()
