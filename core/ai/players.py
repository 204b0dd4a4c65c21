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
from core.ai.fastsim import Sim
from core.ai.knowledge import Knowledge, read_knowledge
from core.ai.normal import decide
from core.ai.search import (
    ROLLOUT_COST,
    WORLD_COST,
    exploit_endgame,
    is_open_book,
    monte_carlo,
    rollout,
    solve_endgame,
)
from core.ai.situation import Situation
from core.rules import apply_action
from core.view import View

LEVELS = ("random", "greedy", "easy", "normal", "hard")
Log = Sequence[tuple[int, str]]

# Budgets, calibrated on the project machine (see docs/ai.md): hard stays under 300 ms at the 99th percentile
# 17,000 before the rollout simulator; with two players holding cards, 32,000
HARD_ROLLOUT_ACTIONS = 32000
# twice that while three or more hold cards: a team's result hangs on a partner's hidden hand (64,000 won team
# games that 32,000 lost), and with random moves in a free-for-all's rollouts the larger budget pays there too
# (without them it did not; docs/ai.md)
HARD_ROLLOUT_ACTIONS_MULTI = 64000
HARD_SOLVER_NODES = 8000
HARD_EXPLOIT_NODES = 4000  # the search against the opponent's model among equally valued exact actions
NORMAL_SOLVER_NODES = 250
HARD_KEEP_MARGIN = 0.05  # hard leaves the normal rules' choice only for an action estimated this much better
# share of random actions in hard's rollouts while three or more players hold cards, no teams (docs/ai.md: against
# three normal players the durak in 16.4% of 800 fresh games instead of 18.3%, 13.5% with 64,000 actions); not
# measured elsewhere
HARD_ROLLOUT_NOISE = 0.12
DRAW_VALUE = 0.5  # what normal's and hard's decisions count a draw as (a win 1.0, being the durak 0.0)
SOLVER_NODE_COST = 2  # one solver node costs about as much as two rollout actions
# normal: Monte Carlo with an empty talon and three or more players left (measured in 4-player games against
# greedy: durak 20% without, 10% with 500 actions, 8% with 800 but a p99 of 9 ms)
NORMAL_SEARCH_ACTIONS = 500
NORMAL_LOOKAHEAD = True  # when the two-player solver runs out of nodes, play each action out once
MODEL_GREEDY = True  # hard's rollouts play an opponent shown not normal, and not shown not greedy, as greedy


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
    """Rules with card counting while the talon lasts; after it, a small search where the rules are weakest.

    Two players left: every card is known, so an exact search (or, past its node budget, each action played
    out once with the rules). Three or more: which opponent holds which unseen card is still open, so a small
    Monte Carlo over sampled deals (the rules' choice wins ties)."""

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
        candidates = _ordered(legal, choice)
        rng = _rng_for(self.seed, view)
        if is_open_book(view, k):
            world = sample_game(view, k, rng)
            values = solve_endgame(world, k.seat, candidates, self.solver_nodes, DRAW_VALUE)
            if values is None and NORMAL_LOOKAHEAD:
                values = {
                    a: rollout(apply_action(world, k.seat, a), k.seat, None, DRAW_VALUE)[0]
                    for a in candidates
                }
            if values is not None:
                return _best(values)
        elif view.talon_size == 0 and NORMAL_SEARCH_ACTIONS:  # three or more players hold cards
            return _best(monte_carlo(view, k, candidates, NORMAL_SEARCH_ACTIONS, rng, draw=DRAW_VALUE))
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
        values = self.evaluate(view, log, draw=DRAW_VALUE, exploit=True)
        best = _best(values)
        preferred = next(iter(values))  # the normal rules' choice (see `evaluate`)
        return best if values[best] >= values[preferred] + HARD_KEEP_MARGIN else preferred

    def evaluate(
        self,
        view: View,
        log: list[tuple[int, str]],
        prune: bool = True,
        draw: float = 1.0,
        exploit: bool = False,
    ) -> dict[Action, float]:
        """Each legal action's chance of not being the durak (a draw counted as ``draw``); ties go to the
        normal player's choice. With ``exploit``, exact values that tie below a win are raised to what the
        action gets against the opponents' model (`_against_habits`); `hint` shows the exact ones."""
        k = read_knowledge(view, log)
        rng = _rng_for(self.seed, view)
        preferred = (
            decide(Situation.from_view(view, k)) if view.to_act == view.seat else view.legal_actions[0]
        )
        candidates = _ordered(view.legal_actions, preferred)
        multi = k.players_left > 2  # two left: as in a two-player game (one of each team, in teams)
        budget = self.rollout_actions or (HARD_ROLLOUT_ACTIONS_MULTI if multi else HARD_ROLLOUT_ACTIONS)
        greedy_seats = _presumed_greedy(k) if MODEL_GREEDY else 0
        if is_open_book(view, k):
            world = Sim.from_game(sample_game(view, k, rng))  # both endgame searches start from it
            values = solve_endgame(world, k.seat, candidates, HARD_SOLVER_NODES, draw)
            if values is not None:
                return _against_habits(values, world, k.seat, draw, greedy_seats) if exploit else values
            budget = max(
                budget // 4, budget - SOLVER_NODE_COST * HARD_SOLVER_NODES
            )  # the failed search's time
        return monte_carlo(
            view, k, candidates, budget, rng, prune=prune, draw=draw, greedy_seats=greedy_seats,
            world_cost=WORLD_COST, rollout_cost=ROLLOUT_COST, noise=_rollout_noise(k),
        )  # fmt: skip


def _against_habits(
    values: dict[Action, float], world: Sim, seat: int, draw: float, greedy_seats: int
) -> dict[Action, float]:
    """Exact values, with the best ones told apart by how they fare against the opponent's model: when
    perfect play beats every action (or holds each to a draw), the one the opponent's habits let escape is
    worth playing. Greedy opponents misplay lost endgames often: in 30 games against greedy, 31 of the 32
    decisions where every action lost had one that escaped against the model (docs/ai.md)."""
    top = max(values.values())
    tied = [a for a, v in values.items() if v == top]
    if top == 1.0 or len(tied) < 2:
        return values
    against_model = exploit_endgame(world, seat, tied, HARD_EXPLOIT_NODES, draw, greedy_seats)
    if against_model is None:
        return values
    return {a: max(v, against_model.get(a, v)) for a, v in values.items()}


def _presumed_greedy(k: Knowledge) -> int:
    """Opponents whose moves fit greedy but not the normal rules are expected to play as greedy does, the
    lowest card that works (against greedy, rollouts told so gave 82% instead of 78%; see docs/ai.md). The
    others are played by the normal rules: taking normal for greedy cost 4 points against normal.

    With the talon empty and three or more players holding cards (no teams), an opponent is presumed greedy
    until its moves say otherwise (a move greedy never makes, or a take the normal rules explain better):
    while the talon lasts the two play alike and little tells them apart, but in the endgame they differ
    most, and by then most normal players have shown themselves (docs/ai.md, "Hard's opponent model")."""
    others = sum(1 << s for s in range(k.n) if s != k.seat)
    shown_greedy = others & k.not_normal & ~k.not_greedy
    if k.talon_size or not _free_for_all_of_three_or_more(k):
        return shown_greedy
    unread = sum(1 << s for s in range(k.n) if k.normal_odds[s] <= 0)
    return shown_greedy | others & unread & ~k.not_greedy


def _rollout_noise(k: Knowledge) -> float:
    """The share of random actions in hard's rollouts: some in a free-for-all of three or more players
    holding cards, none elsewhere (not measured there). With every seat following the rules exactly, each
    sampled world is one fixed line of play, and the search learns to favour actions that pay only on that
    line; a few random moves spread the rollouts over the lines a real table takes."""
    return HARD_ROLLOUT_NOISE if _free_for_all_of_three_or_more(k) else 0.0


def _free_for_all_of_three_or_more(k: Knowledge) -> bool:
    """No teams, and three or more players hold cards: where the presumption and the random moves were
    measured (with two left, the game is a two-player one)."""
    return not k.settings.teams and k.players_left > 2


def _best(values: dict[Action, float]) -> Action:
    """The highest-valued action; the first one listed on ties."""
    return max(values, key=values.__getitem__)


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
