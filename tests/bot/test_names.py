"""Names are shown without bidi controls and zero-width characters; emoji (joined ones too) stay."""

from __future__ import annotations

from bot.i18n import translator
from bot.inputs import User
from bot.names import shown_name
from bot.render.summary import render_stats
from storage.models import PlayerStats
from tests.bot.conftest import ANN
from tests.bot.harness import Harness

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # man ZWJ woman ZWJ girl
RAINBOW_FLAG = "\U0001f3f3\ufe0f\u200d\U0001f308"  # white flag, emoji style, ZWJ rainbow
CODER = "\U0001f469\U0001f3fd\u200d\U0001f4bb"  # woman, medium skin tone, ZWJ laptop


async def test_a_right_to_left_override_in_a_name_does_not_reach_the_table_line(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    await harness.command(User("2", "\u202eBob the Great"), "join")
    await harness.tap(ANN, "Start")
    table = harness.screen.table.plain_text  # type: ignore[union-attr]
    assert "Bob the Great — 6 cards" in table
    assert "\u202e" not in table


async def test_an_emoji_name_stays_whole_in_the_lobby(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    await harness.command(User("2", f"Bob {FAMILY}🎉"), "join")
    assert f"2. Bob {FAMILY}🎉" in harness.screen.table.plain_text  # type: ignore[union-attr]


def test_every_bidi_control_and_zero_width_character_is_dropped() -> None:
    hidden = (
        "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u200b\u200c\u2060\ufeff"
    )
    assert shown_name(f"A{hidden}nn{hidden}") == "Ann"


def test_a_joiner_stays_between_pictographs_and_goes_elsewhere() -> None:
    for emoji in (FAMILY, RAINBOW_FLAG, CODER):
        assert shown_name(f"Eve {emoji}") == f"Eve {emoji}"
    assert shown_name("B\u200dob") == "Bob"
    assert shown_name("\u200d\U0001f389\u200d") == "\U0001f389"


def test_line_breaks_and_tabs_in_a_name_become_single_spaces() -> None:
    assert shown_name(" Ann\n\tLee\r\n") == "Ann Lee"


def test_a_name_with_nothing_visible_becomes_player_in_the_users_language() -> None:
    assert User("5", "\u202e\u200b").name == "Player"
    assert User("5", "\u2066 \u2069", "ru").name == "Игрок"


def test_the_leaderboard_shows_names_stored_earlier_without_their_controls() -> None:
    rows = [PlayerStats("1", "\u202eAnn", games=2), PlayerStats("2", "\u200b", games=1)]
    text = render_stats(rows, translator("en")).plain_text
    assert "1. Ann — " in text and "2. Player — " in text
    assert "\u202e" not in text and "\u200b" not in text


async def test_a_chat_title_with_an_override_heads_the_hands_without_it(harness: Harness) -> None:
    await harness.command(ANN, "newgame", chat_title="\u202eClub\u2069")
    await harness.command(User("2", "Bob"), "join")
    await harness.tap(ANN, "Start")
    hand = harness.screen.hands[ANN.id].plain_text
    assert "Durak in Club\n" in hand and "\u202e" not in hand
