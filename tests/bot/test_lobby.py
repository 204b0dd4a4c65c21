"""The lobby through the service: open, join, leave, add AI, start, cancel, and bad words."""

from __future__ import annotations

from bot.effects import ShowHand, ShowTable
from tests.bot.conftest import ANN, BOB, CAT, EVE
from tests.bot.harness import Harness, button, buttons


async def test_newgame_opens_a_lobby_with_the_rules_in_plain_words(harness: Harness) -> None:
    effects = await harness.command(ANN, "newgame", "transfer neighbours first5")
    table = [e for e in effects if isinstance(e, ShowTable)]
    assert table and table[0].new_message
    text = table[0].message.plain_text
    assert "Transfer" in text and "neighbours" in text and "5 attack cards" in text and "1. Ann" in text
    assert [b.label for b in buttons(harness.screen.table)] == [
        "Join",
        "Leave",
        "Add AI",
        "easy",
        "hard",
        "Start",
        "Cancel",
    ]


async def test_newgame_with_an_unknown_word_names_it_and_lists_the_accepted_words(harness: Harness) -> None:
    await harness.command(ANN, "newgame", "transfer podkidnoj")
    reply = harness.screen.replies[-1].plain_text
    assert "podkidnoj" in reply and "neighbours" in reply and "deck=" in reply
    assert harness.screen.table is None


async def test_newgame_with_conflicting_words_is_refused(harness: Harness) -> None:
    await harness.command(ANN, "newgame", "deck=24 deck=52")
    assert "conflicts" in harness.screen.replies[-1].plain_text


async def test_a_chat_has_at_most_one_lobby(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    version = await harness.version()
    await harness.command(BOB, "newgame", "transfer")
    assert "already open" in harness.screen.replies[-1].plain_text
    assert await harness.version() == version


async def test_join_twice_is_refused_politely(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    await harness.tap(ANN, "Join")
    assert harness.screen.alerts[-1].text == "You are already in."


async def test_a_24_card_deck_seats_at_most_four(harness: Harness) -> None:
    await harness.command(ANN, "newgame", "deck=24")
    for user in (BOB, CAT):
        await harness.tap(user, "Join")
    await harness.tap(ANN, "Add AI")
    await harness.tap(EVE, "Join")
    assert harness.screen.alerts[-1].text == "The game is full."
    assert "4 players" in harness.screen.table.plain_text  # type: ignore[union-attr]


async def test_only_the_creator_starts_before_the_lobby_is_full_or_the_wait_is_over(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    await harness.tap(BOB, "Join")
    await harness.tap(BOB, "Start")
    assert "Only the creator" in harness.screen.alerts[-1].text
    harness.clock += 61
    effects = await harness.tap(BOB, "Start")
    assert any(isinstance(e, ShowHand) for e in effects)


async def test_start_needs_two_players(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    await harness.tap(ANN, "Start")
    assert harness.screen.alerts[-1].text == "At least two players are needed."


async def test_start_deals_a_fresh_private_hand_to_every_person_and_none_to_ai(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    await harness.tap(BOB, "Join")
    await harness.tap(ANN, "Add AI")
    effects = await harness.tap(ANN, "Start")
    hands = [e for e in effects if isinstance(e, ShowHand)]
    assert sorted(e.user_id for e in hands) == ["1", "2"]
    assert all(e.new_message for e in hands)


async def test_the_last_person_leaving_closes_the_lobby(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    await harness.tap(ANN, "Add AI")
    await harness.tap(ANN, "Leave")
    assert "closed" in harness.screen.table.plain_text  # type: ignore[union-attr]
    await harness.command(BOB, "newgame")
    assert "1. Bob" in harness.screen.table.plain_text  # type: ignore[union-attr]


async def test_cancel_is_for_the_creator_or_an_admin(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    await harness.tap(BOB, "Cancel")
    assert "Only the creator" in harness.screen.alerts[-1].text
    await harness.command(BOB, "cancel", is_admin=True)
    assert "cancelled" in harness.screen.table.plain_text  # type: ignore[union-attr]


async def test_join_and_leave_work_as_commands(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    await harness.command(BOB, "join")
    assert "2. Bob" in harness.screen.table.plain_text  # type: ignore[union-attr]
    await harness.command(BOB, "leave")
    assert "Bob" not in harness.screen.table.plain_text  # type: ignore[union-attr]


async def test_chat_default_settings_apply_and_words_override_them(harness: Harness) -> None:
    await harness.command(ANN, "settings", "transfer deck=24", is_admin=True)
    await harness.command(ANN, "newgame", "deck=52")
    text = harness.screen.table.plain_text  # type: ignore[union-attr]
    assert "Transfer" in text and "52 card deck" in text


async def test_settings_are_for_admins(harness: Harness) -> None:
    await harness.command(BOB, "settings", "transfer")
    assert "Only an admin" in harness.screen.replies[-1].plain_text


# ---- seats: only players fill them -------------------------------------------------------------------


async def test_someone_who_has_not_joined_cannot_add_an_ai(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    await harness.tap(EVE, "Add AI")
    assert harness.screen.alerts[-1].text == "Join the game first to add an AI."
    assert "1 player" in harness.screen.table.plain_text  # type: ignore[union-attr]


async def test_a_stranger_pressing_add_ai_five_times_leaves_the_seats_to_the_friends(
    harness: Harness,
) -> None:
    await harness.command(ANN, "newgame")
    for _press in range(5):
        await harness.tap(EVE, "hard")
    for friend in (BOB, CAT):
        await harness.tap(friend, "Join")
    table = harness.screen.table.plain_text  # type: ignore[union-attr]
    assert "2. Bob" in table and "3. Cat" in table and "AI" not in table


async def test_remove_ai_appears_once_an_ai_is_seated(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    assert "Remove AI" not in [b.label for b in buttons(harness.screen.table)]
    await harness.tap(ANN, "Add AI")
    assert [b.label for b in buttons(harness.screen.table)][2:6] == ["Add AI", "easy", "hard", "Remove AI"]


async def test_a_seated_player_removes_the_last_ai_seat(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    await harness.tap(ANN, "Add AI")
    await harness.tap(ANN, "easy")
    await harness.tap(BOB, "Join")
    await harness.tap(BOB, "Remove AI")
    table = harness.screen.table.plain_text  # type: ignore[union-attr]
    assert "2. 🤖 AI 1 (normal)" in table and "3. Bob" in table and "AI 2" not in table


async def test_someone_who_has_not_joined_cannot_remove_an_ai(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    await harness.tap(ANN, "Add AI")
    await harness.tap(EVE, "Remove AI")
    assert harness.screen.alerts[-1].text == "Join the game first to remove an AI."
    assert "AI 1" in harness.screen.table.plain_text  # type: ignore[union-attr]


async def test_a_repeated_remove_ai_press_removes_one_ai_seat(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    await harness.tap(ANN, "Add AI")
    await harness.tap(ANN, "Add AI")
    payload = button(harness.screen.table, "Remove AI").payload
    await harness.press(ANN, payload)
    await harness.press(ANN, payload)
    assert "AI 1" in harness.screen.table.plain_text  # type: ignore[union-attr]
    assert (
        harness.screen.alerts[-1].text == "The lobby has changed: press Remove AI again if you still want to."
    )


async def test_an_ai_added_after_a_removal_takes_a_free_seat_name_and_the_game_starts(
    harness: Harness,
) -> None:
    await harness.command(ANN, "newgame")
    for label in ("Add AI", "Add AI", "Remove AI", "easy"):
        await harness.tap(ANN, label)
    table = harness.screen.table.plain_text  # type: ignore[union-attr]
    assert "2. 🤖 AI 1 (normal)" in table and "3. 🤖 AI 2 (easy)" in table
    effects = await harness.tap(ANN, "Start")
    assert [e.user_id for e in effects if isinstance(e, ShowHand)] == [ANN.id]


async def test_the_creator_leaving_hands_the_lobby_to_the_next_person_not_an_ai(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    await harness.tap(ANN, "Add AI")
    await harness.tap(BOB, "Join")
    await harness.tap(CAT, "Join")
    await harness.tap(ANN, "Leave")
    await harness.tap(CAT, "Start")
    assert "Only the creator" in harness.screen.alerts[-1].text
    await harness.tap(CAT, "Cancel")
    assert "Only the creator" in harness.screen.alerts[-1].text
    effects = await harness.tap(BOB, "Start")
    assert sorted(e.user_id for e in effects if isinstance(e, ShowHand)) == [BOB.id, CAT.id]
