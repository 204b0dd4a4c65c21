"""Every level plays only legal actions from a view and the log, deterministically for a seed."""

from __future__ import annotations

import pytest

from core import Settings, new_game
from core.ai import LEVELS, make_player
from core.ai.players import HardPlayer, Player
from tests.ai.helpers import play_out, stacked

FAST_LEVELS = ("random", "greedy", "easy", "normal")
SETUPS = [("", 2), ("transfer", 2), ("", 4), ("transfer neighbours first5", 5), ("deck=24 exchange", 3),
          ("exchange=ace transfer", 4), ("teams", 4), ("severny exchange", 3)]  # fmt: skip


def _choosers(players: list[Player]) -> list:
    return [p.choose for p in players]


@pytest.mark.parametrize(("words", "n"), SETUPS)
def test_every_fast_level_only_ever_chooses_legal_actions(words: str, n: int) -> None:
    for seed in range(30):
        players = [make_player(FAST_LEVELS[(seed + i) % len(FAST_LEVELS)], seed=seed + i) for i in range(n)]
        game = new_game(Settings.from_words(words), [f"p{i}" for i in range(n)], seed=seed)
        final, _ = play_out(game, _choosers(players))
        assert final.is_over


@pytest.mark.parametrize(("words", "n"), [("", 2), ("transfer exchange", 3), ("teams severny", 4)])
def test_the_hard_level_only_ever_chooses_legal_actions(words: str, n: int) -> None:
    for seed in range(4):
        players: list[Player] = [HardPlayer(seed=seed, rollout_actions=150)]
        players += [make_player("normal", seed=i) for i in range(1, n)]
        game = new_game(Settings.from_words(words), [f"p{i}" for i in range(n)], seed=seed)
        final, _ = play_out(game, _choosers(players))
        assert final.is_over


@pytest.mark.parametrize("level", LEVELS)
def test_a_level_replays_the_same_game_for_the_same_seed(level: str) -> None:
    def run() -> list[str]:
        players = [HardPlayer(seed=5, rollout_actions=120) if level == "hard" else make_player(level, seed=5)]
        players.append(make_player("easy", seed=9))
        game = new_game(Settings.from_words("transfer"), ["a", "b"], seed=11)
        _, chosen = play_out(game, _choosers(players), max_steps=60 if level == "hard" else 2000)
        return [a.code for a in chosen]

    assert run() == run()


@pytest.mark.parametrize("level", LEVELS)
def test_a_choice_depends_only_on_what_the_seat_can_see(level: str) -> None:
    """Two deals that differ only in the opponent's hand and the hidden talon give the same choice."""
    mine = "7H 8C 9D TC JD QC"
    first = stacked(Settings(), [mine, "6C 6D 7C 7D 8D 9C"], "9S", talon="AH KH QH JH TH 9H")
    second = stacked(Settings(), [mine, "AH KH QH JH TH 9H"], "9S", talon="6C 6D 7C 7D 8D 9C")
    assert first.view(0) == second.view(0) and first.log == second.log
    player = HardPlayer(seed=3, rollout_actions=300) if level == "hard" else make_player(level, seed=3)
    assert player.choose(first.view(0), first.log) == player.choose(second.view(0), second.log)


def test_choose_needs_nothing_but_a_view_and_a_plain_log() -> None:
    game = new_game(Settings(), ["a", "b", "c"], seed=2)
    view, log = game.view(game.to_act), [tuple(entry) for entry in game.log]
    del game  # nothing of the game is passed on or reachable from the view
    for level in LEVELS:
        player = HardPlayer(seed=1, rollout_actions=200) if level == "hard" else make_player(level, seed=1)
        assert player.choose(view, log) in view.legal_actions


def test_an_unknown_level_is_refused_with_the_levels_named() -> None:
    with pytest.raises(ValueError, match="normal"):
        make_player("expert")
