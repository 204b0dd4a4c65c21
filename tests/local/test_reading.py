"""Typed lines map to the hand message's buttons, and anything else gets a one-line reason."""

from __future__ import annotations

from adapters.local.reading import Help, Later, Pick, Problem, Quit, SlashCommand, Unplayable, interpret
from adapters.local.text import BOLD, message_text, numbered_buttons
from bot.buttons import named
from bot.effects import Button
from bot.i18n import translator
from bot.payloads import Payload
from bot.render.text import bold, line, message
from core import Card

TR = translator("en")


def button(label: str, code: str) -> Button:
    return Button(label, Payload("terminal", "g1", 4, named(code)).encode())


ATTACKS = [button("9♥", "a:9H"), button("9♠", "a:9S"), button("10♣", "a:TC")]
SWAP_ONLY = [button("Swap for 7♥", "e")]
DEFENCE = [
    button("9♥ → 7♥", "c:0:9H"),
    button("9♥ → 8♥", "c:1:9H"),
    button("K♠", "c:0:KS"),
    button("Take", "t"),
]


def test_a_number_presses_that_button() -> None:
    assert interpret("2", ATTACKS, TR) == Pick(ATTACKS[1].payload)
    assert interpret(" 3 ", ATTACKS, TR) == Pick(ATTACKS[2].payload)


def test_a_number_out_of_range_says_which_numbers_exist() -> None:
    assert interpret("4", ATTACKS, TR) == Problem("There is no move 4: choose 1 to 3.")
    assert interpret("0", ATTACKS, TR) == Problem("There is no move 0: choose 1 to 3.")


def test_a_card_in_any_spelling_presses_the_button_that_plays_it() -> None:
    for spelling in ("9h", "9H", "9♥"):
        assert interpret(spelling, ATTACKS, TR) == Pick(ATTACKS[0].payload)
    assert interpret("10c", ATTACKS, TR) == Pick(ATTACKS[2].payload)
    assert interpret("tc", ATTACKS, TR) == Pick(ATTACKS[2].payload)


def test_a_card_that_fits_several_moves_asks_which_by_number() -> None:
    meaning = interpret("9h", DEFENCE, TR)
    assert isinstance(meaning, Problem)
    assert "1) 9♥ → 7♥" in meaning.text and "2) 9♥ → 8♥" in meaning.text and "K♠" not in meaning.text


def test_a_card_no_move_plays_is_left_to_the_game_to_explain() -> None:
    """The terminal asks the stored game why (tests/local/test_terminal_refusals.py); this text is the fallback."""
    meaning = interpret("as", ATTACKS, TR)
    text = "A♠ is not one of your moves now: you do not hold it, or it cannot be played."
    assert meaning == Unplayable(text, Card.parse("AS"))


def test_t_and_p_press_take_and_pass_or_say_they_are_not_possible() -> None:
    assert interpret("t", DEFENCE, TR) == Pick(DEFENCE[3].payload)
    assert interpret("P", DEFENCE, TR) == Problem("You cannot pass now.")
    assert interpret("take", ATTACKS, TR) == Problem("You cannot take now.")


def test_a_number_typed_out_of_turn_is_told_to_wait() -> None:
    meaning = interpret("1", [], TR)
    assert isinstance(meaning, Problem) and meaning.text.startswith("Not your turn")


def test_a_card_take_or_pass_typed_out_of_turn_is_kept_for_the_turn() -> None:
    assert interpret("9h", [], TR) == Later("9h", "9♥")
    assert interpret("T", [], TR) == Later("T", "Take")
    assert interpret("pass", SWAP_ONLY, TR) == Later("pass", "Pass")  # the trump swap is no turn


def test_words_that_are_not_moves_get_the_usage_line() -> None:
    for text in ("hello", "", "9x", "-1", "1.5"):
        meaning = interpret(text, ATTACKS, TR)
        assert isinstance(meaning, Problem) and "Type a move's number (1-3)" in meaning.text


def test_commands_help_and_quit() -> None:
    assert interpret("/stats", ATTACKS, TR) == SlashCommand("stats")
    assert interpret("/newgame transfer deck=24", [], TR) == SlashCommand("newgame", "transfer deck=24")
    assert interpret("?", ATTACKS, TR) == Help()
    assert interpret("q", ATTACKS, TR) == Quit()


def test_text_keeps_bold_plain_or_draws_it_with_ansi() -> None:
    shown = message([line("Trump ", bold("♠"))])
    assert message_text(shown) == "Trump ♠"
    assert message_text(shown, ansi=True) == f"Trump {BOLD}♠\x1b[0m"
    assert numbered_buttons(ATTACKS) == "1) 9♥   2) 9♠   3) 10♣"
