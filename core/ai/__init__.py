"""AI players for Durak: they decide from a seat's `View` and the public log, never from the `Game`.

``make_player(level, seed=...)`` gives a player with ``choose(view, log) -> Action``; levels: random and
greedy (the fixed baselines), easy, normal and hard. ``hint(view, log)`` ranks a human's legal actions.
See docs/ai.md for the levels, their budgets and the measured strength.
"""

from core.ai.hint import hint
from core.ai.players import LEVELS, Player, make_player

__all__ = ["LEVELS", "Player", "hint", "make_player"]
