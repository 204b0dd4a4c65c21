"""A finished game's analysis: for each decision of some seats, the hard AI's view of the move played.

For a logged action whose seat had two or more legal actions, `hint` is asked on that seat's `View` just
before it (its hand, the public table and what the log lets it remember, never the hidden cards), with the
public log up to there: the same question `/hint` answers during a game. The decision records the chance of
being the durak after the move played and after the best move found; their difference is what the move cost.
A seed per step (``seeds``) makes the analysis the same in any process.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass

from core.actions import Action
from core.ai.hint import hint
from core.state import Game

COSTLY = 0.10  # a decision that cost more than this chance of being the durak is flagged

Log = Sequence[tuple[int, str]]


@dataclass(frozen=True, slots=True)
class Decision:
    """One evaluated decision: the chances are of being the durak, estimated from the seat's own view."""

    step: int  # the logged action's number, 1 for the first (the replay's step after it)
    seat: int
    played: Action
    best: Action  # the played move itself when nothing was found better
    played_durak: float
    best_durak: float

    @property
    def cost(self) -> float:
        """How much the move played raised the chance of being the durak over the best one (0 or more)."""
        return max(0.0, self.played_durak - self.best_durak)

    @property
    def costly(self) -> bool:
        return self.cost > COSTLY


def positions(game: Game, log: Log) -> Iterator[tuple[int, int, Action, Game]]:
    """(number, seat, action, the game before it) for each logged action, applied by the engine."""
    for number, (seat, code) in enumerate(log, start=1):
        action = Action.parse(code)
        yield number, seat, action, game
        game = game.apply(seat, action)


def decision_steps(game: Game, log: Log, seats: Collection[int] | None = None) -> list[int]:
    """The numbers of the logged actions worth evaluating: played by one of ``seats`` (all when None) with
    two or more legal actions to choose from."""
    return [
        number
        for number, seat, _action, before in positions(game, log)
        if (seats is None or seat in seats) and len(before.legal_actions(seat)) > 1
    ]


def evaluate(before: Game, seat: int, played: Action, number: int, seed: int) -> Decision:
    """The decision ``seat`` made at step ``number``: `hint` on its view of ``before`` and the log so far."""
    ranked = hint(before.view(seat), before.log, seed=seed)
    chances = dict(ranked)
    best, best_chance = ranked[0]
    played_chance = chances[played]
    if played_chance >= best_chance:
        best = played
    return Decision(number, seat, played, best, 1.0 - played_chance, 1.0 - max(best_chance, played_chance))


def analyse(
    game: Game,
    log: Log,
    steps: Collection[int],
    seeds: Callable[[int], int] = lambda step: step,
    progress: Callable[[int], object] = lambda done: None,
) -> list[Decision]:
    """The decisions at ``steps`` (logged actions' numbers, see `decision_steps`) of the game ``game`` as
    dealt, whose log is ``log``. ``seeds`` gives the seed for the game's step before the decision (the
    bot's `decision_seed`, as `/hint` used); ``progress`` is told how many are done after each."""
    wanted = set(steps)
    found: list[Decision] = []
    for number, seat, action, before in positions(game, log):
        if number in wanted:
            found.append(evaluate(before, seat, action, number, seeds(before.step)))
            progress(len(found))
            if len(found) == len(wanted):
                break
    return found


def costliest(decisions: Sequence[Decision], limit: int = 10) -> list[Decision]:
    """The costly decisions (`COSTLY`), the most expensive first (earlier first on ties), at most ``limit``."""
    flagged = [d for d in decisions if d.costly]
    return sorted(flagged, key=lambda d: (-d.cost, d.step))[:limit]


@dataclass(frozen=True, slots=True)
class Analysis:
    """A game's analysis: the seats analysed and their decisions, in the order played."""

    seats: tuple[int, ...]
    decisions: tuple[Decision, ...]

    def encode(self) -> str:
        """Compact JSON for storing; a decision is [step, seat, played, best, played_durak, best_durak]."""
        rows = [
            [d.step, d.seat, d.played.code, d.best.code, round(d.played_durak, 3), round(d.best_durak, 3)]
            for d in self.decisions
        ]
        return json.dumps({"seats": list(self.seats), "decisions": rows}, separators=(",", ":"))

    @classmethod
    def decode(cls, text: str) -> Analysis:
        """ValueError when ``text`` is not an encoded analysis."""
        try:
            data = json.loads(text)
            decisions = tuple(
                Decision(int(step), int(seat), Action.parse(played), Action.parse(best), float(pd), float(bd))
                for step, seat, played, best, pd, bd in data["decisions"]
            )
            return cls(tuple(int(s) for s in data["seats"]), decisions)
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"not an analysis: {error}") from error
