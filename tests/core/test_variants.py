"""rules.md §8.5 and §8.6, variants: teams and Durak Severnyi, with stacked decks; plus random playouts."""

from __future__ import annotations

import random

import pytest

from core import Game, IllegalAction, Settings, SettingsError, SetupError, new_game
from tests.core.helpers import codes, game_with, hand, play, talon
from tests.core.invariants import assert_cards_accounted, assert_turn_is_sound

# ---- teams: 24 cards, 4 players (seats 0 and 2 against 1 and 3), hearts trumps, seat 0 opens --------------

TEAM_HANDS = ["9S 9C 9D TS TC AC", "9H TH JH QH KH AH", "TD AS AD KS KC KD", "JS QS JC QC JD QD"]
FIRST_BOUT = [
    *("0 a:9S", "1 c:0:9H", "0 a:9C", "1 c:1:TH", "0 a:9D", "1 c:2:JH"),
    *("0 a:TS", "1 c:3:QH", "0 a:TC", "1 c:4:KH", "2 a:TD", "1 c:5:AH"),
]


def team_game() -> Game:
    return game_with([h.split() for h in TEAM_HANDS], settings="deck=24 teams", dealer=1, opener=0)


def test_team_games_need_four_or_six_players() -> None:
    with pytest.raises(SetupError, match="4 players"):
        new_game(Settings.from_words("teams"), ["A", "B", "C"], seed=1)
    six = new_game(Settings.from_words("teams"), list("ABCDEF"), seed=1)
    assert six.defender % 2 != six.attacker % 2, "the opener's defender is always an opponent"


def test_transfer_is_refused_in_team_games() -> None:
    with pytest.raises(SettingsError, match="not played in team games"):
        Settings.from_words("teams transfer")


def test_the_defenders_partner_never_throws_in() -> None:
    game = play(team_game(), *FIRST_BOUT[:10])
    assert game.throwers() == [0, 2]  # seat 3, the defender's partner, is never asked
    assert game.to_act == 2  # seat 0 holds nothing of the table's ranks and is skipped


def test_a_partner_is_skipped_as_defender_after_an_opponent_goes_out() -> None:
    game = play(team_game(), *FIRST_BOUT)
    assert game.out == (1,)
    game = play(game, "2 a:AS", "3 t", "2 p", "0 p")  # seat 3 picks up: the next active player attacks
    assert (game.to_act, game.attacker) == (0, 0)
    assert game.defender == 3, "seat 1 is out and seat 2 is seat 0's partner: the next opponent defends"


def test_the_last_team_holding_cards_loses_together() -> None:
    game = play(team_game(), *FIRST_BOUT, "2 a:AS", "3 t", "2 p", "0 p", "0 a:AC", "3 t", "2 a:AD")
    game = play(game, "2 a:KS", "3 t", "2 a:KC", "2 a:KD")
    assert game.is_over and game.result is not None
    assert game.result.reason == "last_team"
    assert game.result.losers == (1, 3), "seat 1 went out first, yet loses with its partner"
    assert game.result.durak == 3 and game.result.order_out == (1, 0, 2)


def test_the_losing_partner_holding_the_most_cards_is_named_durak() -> None:
    game = game_with(
        ["JS JC JD QS QC QD", "KS KC KD AS AC AD", "9S 9C 9D TS TC TD", "TH 9H JH QH KH AH"],
        settings="deck=24 teams",
        opener=2,
    )
    game = play(game, "2 a:9S", "3 c:0:TH", "2 a:9C", "3 t", "2 a:9D", "2 a:TS", "2 a:TC", "2 a:TD")
    game = play(game, "0 a:JS", "1 c:0:KS", "0 a:JC", "1 t", "0 a:JD")
    game = play(game, "3 a:9S", "0 c:0:QS", "3 a:9C", "0 c:1:QC", "3 p", "0 a:QD", "1 c:0:KD")
    assert game.result is not None and game.result.losers == (1, 3)
    assert (game.hand_size(1), game.hand_size(3)) == (8, 10)
    assert game.result.durak == 3, "the partner with more cards is the durak, not the lower seat"


def test_a_team_surrender_loses_for_the_whole_team() -> None:
    game = team_game().apply(2, "s")
    assert game.result is not None and game.result.losers == (0, 2)


# ---- Severny: 36 cards, 2 players; the talon's last face-down card sets the new trumps -------------------

SEVERNY_HANDS = ["6S 7S 8S 9S TS JS", "6C 7C 8C 9C TC JC"]


def draw_down_to_last_hidden_card(game: Game) -> Game:
    """Play bouts where seat 0 leads and seat 1 takes until the talon holds two cards (one face down)."""
    for _ in range(40):
        if len(game.talon) <= 2 or game.is_over:
            return game
        seat = game.to_act
        assert seat is not None
        options = game.legal_actions(seat)
        take = [a for a in options if a.code == "t"]
        game = game.apply(seat, take[0] if take else options[0])
    return game


def test_severny_changes_trumps_to_the_suit_of_the_last_face_down_card_when_it_is_drawn() -> None:
    game = game_with([h.split() for h in SEVERNY_HANDS], trump="7D", settings="severny", opener=0)
    last_hidden = talon(game)[-2]
    game = draw_down_to_last_hidden_card(game)
    assert len(game.talon) == 2 and game.severny_card < 0, (
        "trumps hold until the last face-down card is drawn"
    )
    while game.talon and game.severny_card < 0:
        seat = game.to_act
        assert seat is not None
        options = game.legal_actions(seat)
        take = [a for a in options if a.code == "t"]
        game = game.apply(seat, take[0] if take else options[0])
    assert game.view(None).severny_card == last_hidden
    assert game.trump == last_hidden.suit
    assert any(last_hidden in hand(game, seat) for seat in range(2))


def test_without_severny_trumps_never_change() -> None:
    game = game_with([h.split() for h in SEVERNY_HANDS], trump="7D", opener=0)
    game = draw_down_to_last_hidden_card(game)
    while game.talon:
        seat = game.to_act
        assert seat is not None
        options = game.legal_actions(seat)
        take = [a for a in options if a.code == "t"]
        game = game.apply(seat, take[0] if take else options[0])
    assert game.trump == "D" and game.view(None).severny_card is None


def test_no_exchange_once_severny_has_changed_trumps() -> None:
    game = game_with([h.split() for h in SEVERNY_HANDS], trump="7D", settings="severny exchange", opener=0)
    while game.severny_card < 0 and game.talon:
        seat = game.to_act
        assert seat is not None
        options = [a for a in game.legal_actions(seat) if a.code != "e"]
        take = [a for a in options if a.code == "t"]
        game = game.apply(seat, take[0] if take else options[0])
    for seat in range(2):
        assert "e" not in codes(game, seat)
        with pytest.raises(IllegalAction):
            game.apply(seat, "e")


# ---- random playouts: every invariant holds for teams and Severny ----------------------------------------


@pytest.mark.parametrize(
    "words",
    [
        "teams",
        "teams neighbours first5",
        "teams auto exchange",
        "severny",
        "severny transfer exchange",
        "teams severny deck=52",
    ],
)
def test_random_team_and_severny_games_keep_every_invariant(words: str) -> None:
    settings = Settings.from_words(words)
    rng = random.Random(words)
    counts = (4, 6) if settings.teams else (2, 3, 4, 5, 6)
    for number in range(150):
        players = rng.choice([n for n in counts if n * 6 <= settings.deck])
        game = new_game(settings, [f"P{s}" for s in range(players)], seed=number)
        for _ in range(3000):
            legal = game.legal_actions(game.to_act) if game.to_act is not None else []
            assert_cards_accounted(game)
            assert_turn_is_sound(game, legal)
            if game.is_over:
                break
            if settings.teams:
                assert game.team_of(game.attacker) != game.team_of(game.defender) or game.attacker in game.out
                assert all(game.team_of(s) != game.team_of(game.defender) for s in game.throwers())
            seat = game.to_act
            assert seat is not None
            game = game.apply(seat, rng.choice(legal))
        assert game.is_over, f"{words}: game {number} did not end"
        assert Game.from_json(game.to_json()) == game
