"""Readable `IllegalAction` reasons for typical wrong moves, and the `/newgame` words of `Settings`."""

from __future__ import annotations

import pytest

from core import Action, IllegalAction, Settings, SettingsError
from tests.core.helpers import game_with, play

HANDS = ["6S 6C TD JD QD KD", "7S 8C 9C 9D 8D 7D", "7C JS QS KS AS TC"]


@pytest.mark.parametrize(
    ("moves", "wrong", "reason"),
    [
        ([], "1 a:7S", "it is not your turn: waiting for P0"),
        ([], "0 a:AH", "you do not hold AH"),
        ([], "0 t", "open the bout by playing a card"),
        (["0 a:6S"], "1 c:0:8C", "8C does not beat 6S"),
        (["0 a:6S"], "1 c:1:7S", "there is no card in place 2 on the table"),
        (["0 a:6S"], "1 p", "you are defending: cover a card, take, or transfer"),
        (["0 a:6S"], "1 x:7S", "transfers are not allowed in classic games (option: transfer)"),
        (["0 a:6S", "1 c:0:7S"], "0 a:TD", "TD: only a rank already on the table may be thrown in"),
        (["0 a:6S", "1 c:0:7S"], "0 c:0:6C", "throw in a card of a rank on the table, or pass"),
        (["0 a:6S", "1 c:0:7S", "0 a:6C"], "1 c:0:8D", "6S is already covered"),
        ([], "1 e", "exchanging the trump card is not allowed in this game (option: exchange)"),
        ([], "5 a:6S", "there is no seat 5"),
    ],
)
def test_an_illegal_action_is_refused_with_a_reason_a_player_can_read(
    moves: list[str], wrong: str, reason: str
) -> None:
    game = play(game_with(HANDS, trump="AH", opener=0), *moves)
    seat, code = wrong.split()
    assert game.why_illegal(int(seat), Action.parse(code)) == reason
    with pytest.raises(IllegalAction) as refused:
        game.apply(int(seat), code)
    assert str(refused.value) == reason
    assert play(game_with(HANDS, trump="AH", opener=0), *moves).to_json() == game.to_json()  # unchanged


def test_a_malformed_action_code_names_the_accepted_forms() -> None:
    with pytest.raises(ValueError, match="a:6S, c:0:9S, t, p, x:6H, e or s"):
        Action.parse("cover 6S")
    assert Action.parse("c:0:10h").code == "c:0:TH"


def test_settings_words_build_every_option_and_render_back() -> None:
    words = "transfer neighbours first5 deck=24 exchange=ace timer=45 opener=durak_right scoring=winner"
    settings = Settings.from_words(words)
    assert (settings.mode, settings.throw_in, settings.first5, settings.deck) == (
        "transfer",
        "neighbours",
        True,
        24,
    )
    assert (settings.exchange, settings.timer, settings.opener, settings.scoring) == (
        "ace",
        45,
        "durak_right",
        "winner",
    )
    assert Settings.from_words(settings.to_words()) == settings
    assert Settings.from_words("") == Settings() and Settings().to_words() == ""


def test_an_unknown_settings_word_is_named_and_the_accepted_words_listed() -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_words("transfer sideways")
    assert (
        "sideways" in str(refused.value)
        and "neighbours" in str(refused.value)
        and "deck=" in str(refused.value)
    )


def test_conflicting_settings_words_are_refused() -> None:
    with pytest.raises(SettingsError, match="conflicts"):
        Settings.from_words("classic transfer")


def test_a_timer_outside_its_range_is_refused() -> None:
    with pytest.raises(SettingsError, match="15..600"):
        Settings.from_words("timer=5")
    assert Settings.from_words("timer=0").timer == 0
