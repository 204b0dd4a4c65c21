"""Search for the hard level: Monte Carlo over sampled worlds, and an exact endgame solver.

Monte Carlo (determinized, flat at the root): sample a world consistent with the seat's knowledge, try every
candidate action in it and play each to the end with the normal player's rules for every seat (greedy's for
the opponents the log shows to play that way, see `players._presumed_greedy`); the same
world serves all candidates (paired comparison), and clearly worse candidates are dropped as worlds
accumulate. The budget is a count of simulated actions, never the clock, so a seed gives the same choice on
any machine.

Exact: once the talon is empty and only two players hold cards, every card is known. A depth-first search
with a transposition table decides whether each action lets the seat avoid being the durak; it gives up
(returns None) past a node budget, and the caller falls back to Monte Carlo. Where perfect play beats every
action (or holds each to a draw), a second search plays the opponents by their model instead
(`exploit_endgame`): the lost position a greedy player misplays is worth choosing.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Sequence

from core.actions import Action, Kind
from core.ai.baselines import greedy_move
from core.ai.determinize import sample_game
from core.ai.fastsim import OVER, Sim
from core.ai.knowledge import Knowledge
from core.ai.normal import normal_move
from core.ai.situation import card_value
from core.state import Game
from core.view import View

LAST = 100  # sorts after every card value
ROLLOUT_CAP = 600  # actions; a rollout longer than this is scored as a draw
PRUNE_EVERY = 6  # worlds between two prunings of clearly worse candidates
PRUNE_MARGIN = 0.2
# what a sampled world and the start of a rollout cost, in simulated actions (25 us and 5 us when an action took
# about 4.6 us; the faster simulator of 1 December brought an action nearer 2 us, and these were kept so that
# decisions stay as measured): where rollouts are a few actions long (the last bout of a 4-player game),
# thousands of worlds would otherwise fit the budget, and a decision took 465 ms instead of about 130
WORLD_COST = 6
ROLLOUT_COST = 2  # the candidate's own action and the copy of the world


def rollout(
    game: Game | Sim,
    seat: int,
    rng: random.Random | None = None,
    draw: float = 1.0,
    greedy_seats: int = 0,
    noise: float = 0.0,
) -> tuple[float, int]:
    """Play the world to its end with the normal rules (greedy's for the seats in the mask ``greedy_seats``);
    (score, actions). The score is 0.0 when ``seat`` is the durak (or on the losing team), ``draw`` when
    nobody is, else 1.0. With ``rng``, a ``noise`` share of the actions (every seat's) is a random legal one
    instead. A `Sim` is played in place; a `Game` is left as it is."""
    sim = Sim.from_game(game) if isinstance(game, Game) else game
    steps = 0
    while sim.phase is not OVER and steps < ROLLOUT_CAP:
        actor = sim.to_act
        if noise and rng is not None and rng.random() < noise:
            legal = [a for a in sim.legal_actions(actor) if a.kind is not Kind.EXCHANGE]
            action = legal[int(rng.random() * len(legal))]
        elif greedy_seats >> actor & 1:
            action = greedy_move(sim, actor)
        else:
            action = normal_move(sim, actor)
        sim.apply(actor, action)
        steps += 1
    return sim.score(seat, draw), steps


def score(game: Game, seat: int, draw: float = 1.0) -> float:
    """0.0 when ``seat`` lost, ``draw`` when nobody did (or the game is unfinished), 1.0 when another did."""
    if lost(game, seat):
        return 0.0
    result = game.result
    return 1.0 if result is not None and result.durak is not None else draw


def lost(game: Game, seat: int) -> bool:
    """Whether ``seat`` is the durak (or, in a team game, on the losing team)."""
    result = game.result
    return result is not None and (result.durak == seat or seat in result.losers)


def monte_carlo(
    view: View,
    k: Knowledge,
    candidates: Sequence[Action],
    budget: int,
    rng: random.Random,
    prune: bool = True,
    draw: float = 1.0,
    greedy_seats: int = 0,
    world_cost: int = 0,
    rollout_cost: int = 1,
    noise: float = 0.0,
) -> dict[Action, float]:
    """Each candidate's estimated chance that ``k.seat`` is not the durak (a draw counted as ``draw``), within
    ``budget`` actions; rollouts play the seats in ``greedy_seats`` as greedy, and a ``noise`` share of all
    actions at random (the same random draws for every candidate in a world). Each world is charged
    ``world_cost`` actions and each rollout ``rollout_cost`` besides its own (hard: `WORLD_COST`,
    `ROLLOUT_COST`; normal's small search keeps counting only the actions, as it was measured)."""
    seat = k.seat
    wins = dict.fromkeys(candidates, 0.0)
    tries = dict.fromkeys(candidates, 0)
    alive = list(candidates)
    spent = 0
    worlds = 0
    while worlds == 0 or spent + spent / worlds <= budget:  # stop before a world would overrun
        world = Sim.from_game(sample_game(view, k, rng))
        worlds += 1
        spent += world_cost
        noise_seed = rng.random()
        for action in alive:  # the same noise for every candidate in a world: a paired comparison
            after = world.copy()
            after.apply(seat, action)
            noise_rng = random.Random(noise_seed) if noise else None
            value, steps = rollout(after, seat, noise_rng, draw, greedy_seats, noise)
            wins[action] += value
            tries[action] += 1
            spent += steps + rollout_cost
        if prune and len(alive) > 2 and worlds % PRUNE_EVERY == 0:
            best = max(wins[a] / tries[a] for a in alive)
            alive = [a for a in alive if wins[a] / tries[a] + PRUNE_MARGIN >= best]
    return {a: wins[a] / tries[a] for a in candidates}


class OutOfBudget(Exception):
    """The exact search needed more nodes than it was given."""


class _Solver:
    """Can ``seat`` avoid being the durak from here, with perfect play by both sides?"""

    def __init__(self, seat: int, budget: int, strict: bool = False) -> None:
        self.seat = seat
        self.budget = budget
        self.strict = strict  # True: can ``seat`` make another player the durak (a draw is not enough)?
        self.nodes = 0
        self.memo: dict[tuple[object, ...], bool] = {}

    def safe(self, game: Sim) -> bool:
        if game.phase is OVER:
            return game.score(self.seat, 0.0 if self.strict else 1.0) == 1.0
        key = _position_key(game)
        known = self.memo.get(key)
        if known is not None:
            return known
        self.nodes = _counted(self.nodes, self.budget)
        actor = game.to_act
        mine = actor == self.seat
        value = not mine
        for action in self.ordered(game, actor):
            if self.safe(_after(game, actor, action)) == mine:
                value = mine
                break
        self.memo[key] = value
        return value

    @staticmethod
    def ordered(game: Sim, actor: int) -> list[Action]:
        """Cheapest card first, taking or passing last: on 60 endgames this needed 78% of the nodes and 58%
        of the time of asking the normal rules for the first move at every node."""
        trump = game.trump_index
        legal = [a for a in game.legal_actions(actor) if a.kind is not Kind.EXCHANGE]
        return sorted(legal, key=lambda a: card_value(a.card_id, trump) if a.card_id >= 0 else LAST)


def _position_key(game: Sim) -> tuple[object, ...]:
    """What decides the rest of a game whose cards are all known: the hands, the table, whose turn it is and
    the bout's counters (the repetition record is left out: the searches do not model it)."""
    return (
        tuple(game.hand_masks), tuple(game.attacks), tuple(game.covers), game.phase, game.to_act,
        game.attacker, game.defender, game.passed, game.defender_limit, game.out,
    )  # fmt: skip


def _counted(nodes: int, budget: int) -> int:
    """One more node searched; `OutOfBudget` past ``budget``."""
    if nodes >= budget:
        raise OutOfBudget
    return nodes + 1


def _after(game: Sim, seat: int, action: Action) -> Sim:
    """A copy of ``game`` with ``action`` played."""
    child = game.copy()
    child.apply(seat, action)
    return child


def solve_endgame(
    game: Game | Sim, seat: int, candidates: Sequence[Action], budget: int, draw: float = 1.0
) -> dict[Action, float] | None:
    """1.0 or 0.0 per candidate (a certain escape or a certain loss), or None past ``budget`` nodes. With
    ``draw`` below 1.0, an escape that cannot force a win is worth ``draw`` (when the nodes left suffice).
    It searches on the rollout simulator (the same rules, a copy and a move in place per node)."""
    root = Sim.from_game(game) if isinstance(game, Game) else game
    solver = _Solver(seat, budget)
    try:
        values = {a: 1.0 if solver.safe(_after(root, seat, a)) else 0.0 for a in candidates}
    except OutOfBudget:
        return None
    escapes = [a for a in candidates if values[a]]
    if draw < 1.0 and len(escapes) > 1:
        strict = _Solver(seat, budget - solver.nodes, strict=True)
        with contextlib.suppress(OutOfBudget):  # out of nodes: every escape stays at 1.0
            values.update({a: 1.0 if strict.safe(_after(root, seat, a)) else draw for a in escapes})
    return values


class _BestResponse:
    """What ``seat`` can get from here when every other seat plays its model (the normal rules, greedy's for
    the seats in ``greedy_seats``): a search over ``seat``'s own actions only, the others' being fixed."""

    def __init__(self, seat: int, budget: int, draw: float, greedy_seats: int) -> None:
        self.seat = seat
        self.budget = budget
        self.draw = draw
        self.greedy_seats = greedy_seats
        self.nodes = 0
        self.memo: dict[tuple[object, ...], float] = {}

    def value(self, game: Sim) -> float:
        while game.phase is not OVER and game.to_act != self.seat:  # the others' moves are the model's
            actor = game.to_act
            move = greedy_move if self.greedy_seats >> actor & 1 else normal_move
            game.apply(actor, move(game, actor))
        if game.phase is OVER:
            return game.score(self.seat, self.draw)
        key = _position_key(game)
        known = self.memo.get(key)
        if known is not None:
            return known
        self.nodes = _counted(self.nodes, self.budget)
        best = 0.0
        for action in _Solver.ordered(game, self.seat):
            best = max(best, self.value(_after(game, self.seat, action)))
            if best == 1.0:
                break
        self.memo[key] = best
        return best


def exploit_endgame(
    game: Game | Sim, seat: int, candidates: Sequence[Action], budget: int, draw: float, greedy_seats: int
) -> dict[Action, float] | None:
    """Each candidate's result against the opponents' model (see `_BestResponse`), or None past ``budget``
    nodes. Used among actions the exact search values alike: when every action loses against perfect play,
    the one the opponent's habits are likeliest to let escape."""
    root = Sim.from_game(game) if isinstance(game, Game) else game
    search = _BestResponse(seat, budget, draw, greedy_seats)
    try:
        return {a: search.value(_after(root, seat, a)) for a in candidates}
    except OutOfBudget:
        return None


def is_open_book(view: View, k: Knowledge) -> bool:
    """Talon empty and two players left holding cards: nothing is hidden any more."""
    return view.talon_size == 0 and k.players_left == 2
