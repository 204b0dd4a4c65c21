"""The AI seats: `make_player(level, seed)` and one small class per level, all deciding from a view + log.

A player keeps no state between calls besides its seed, so one object may play any seat of any game, and the
same (seed, view, log) always gives the same action.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from core.actions import EXCHANGE, Action
from core.ai.baselines import easy_choice, greedy_choice, random_choice
from core.ai.determinize import sample_game
from core.ai.knowledge import read_knowledge
from core.ai.normal import decide
from core.ai.search import is_open_book, monte_carlo, solve_endgame
from core.ai.situation import Situation
from core.view import View

LEVELS = ("random", "greedy", "easy", "normal", "hard")
Log = Sequence[tuple[int, str]]

# Budgets, calibrated on the project machine (see docs/ai.md): hard stays under 300 ms at the 99th percentile
HARD_ROLLOUT_ACTIONS = 14000
HARD_SOLVER_NODES = 6000
NORMAL_SOLVER_NODES = 250
SOLVER_NODE_COST = 2  # one solver node costs about as much as two rollout actions


def _rng_for(seed: int, view: View) -> random.Random:
    """A generator for this decision only: the seed, the seat and the game's step pick it."""
    return random.Random(seed * 1_000_003 + (view.seat or 0) * 7919 + view.step)


class Player:
    """Base: ``choose(view, log)`` returns one of ``view.legal_actions``."""

    level = "base"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view: View, log: Log) -> Action:
        if not view.legal_actions:
            raise ValueError("this seat has nothing to do now")
        return self._choose(view, list(log))

    def _choose(self, view: View, log: list[tuple[int, str]]) -> Action:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} seed={self.seed}>"


class RandomPlayer(Player):
    level = "random"

    def _choose(self, view: View, log: list[tuple[int, str]]) -> Action:
        return random_choice(view, _rng_for(self.seed, view))


class GreedyPlayer(Player):
    level = "greedy"

    def _choose(self, view: View, log: list[tuple[int, str]]) -> Action:
        return greedy_choice(view)


class EasyPlayer(Player):
    level = "easy"

    def _choose(self, view: View, log: list[tuple[int, str]]) -> Action:
        return easy_choice(view, _rng_for(self.seed, view))


class NormalPlayer(Player):
    """Rules with card counting; a small exact search once everything is known."""

    level = "normal"
    solver_nodes = NORMAL_SOLVER_NODES

    def _choose(self, view: View, log: list[tuple[int, str]]) -> Action:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        if EXCHANGE in legal:
            return EXCHANGE
        k = read_knowledge(view, log)
        choice = decide(Situation.from_view(view, k))
        if is_open_book(view, k):
            world = sample_game(view, k, _rng_for(self.seed, view))
            values = solve_endgame(world, k.seat, _ordered(legal, choice), self.solver_nodes)
            if values is not None and values[choice] < 1.0 and max(values.values()) == 1.0:
                return max(values, key=lambda a: values[a])
        return choice


class HardPlayer(Player):
    """Monte Carlo over sampled worlds with the normal rules as rollouts; exact when nothing is hidden."""

    level = "hard"

    def __init__(self, seed: int = 0, rollout_actions: int | None = None) -> None:
        super().__init__(seed)
        self.rollout_actions = rollout_actions

    def _choose(self, view: View, log: list[tuple[int, str]]) -> Action:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        if EXCHANGE in legal:
            return EXCHANGE
        values = self.evaluate(view, log)
        return max(values, key=lambda a: values[a])

    def evaluate(self, view: View, log: list[tuple[int, str]], prune: bool = True) -> dict[Action, float]:
        """Each legal action's chance of not being the durak; ties go to the normal player's choice."""
        k = read_knowledge(view, log)
        rng = _rng_for(self.seed, view)
        preferred = (
            decide(Situation.from_view(view, k)) if view.to_act == view.seat else view.legal_actions[0]
        )
        candidates = _ordered(view.legal_actions, preferred)
        budget = self.rollout_actions or HARD_ROLLOUT_ACTIONS
        if is_open_book(view, k):
            world = sample_game(view, k, rng)
            values = solve_endgame(world, k.seat, candidates, HARD_SOLVER_NODES)
            if values is not None:
                return values
            budget = max(
                budget // 4, budget - SOLVER_NODE_COST * HARD_SOLVER_NODES
            )  # the failed search's time
        values = monte_carlo(view, k, candidates, budget, rng, prune=prune)
        return values


def _ordered(legal: Sequence[Action], first: Action) -> list[Action]:
    """``first`` at the front, so that `max` keeps it on ties (dicts keep insertion order)."""
    if first not in legal:
        return list(legal)
    return [first, *(a for a in legal if a is not first)]


def make_player(level: str = "normal", seed: int = 0) -> Player:
    """An AI player of ``level`` (random, greedy, easy, normal, hard), deterministic for ``seed``."""
    classes: dict[str, type[Player]] = {
        "random": RandomPlayer,
        "greedy": GreedyPlayer,
        "easy": EasyPlayer,
        "normal": NormalPlayer,
        "hard": HardPlayer,
    }
    if level not in classes:
        raise ValueError(f"unknown AI level {level!r}: choose one of {', '.join(LEVELS)}")
    return classes[level](seed=seed)
