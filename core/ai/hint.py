"""`/hint`: every legal action of a seat with the hard AI's chance of not being the durak after it."""

from __future__ import annotations

from collections.abc import Sequence

from core.actions import Action
from core.ai.players import HardPlayer
from core.view import View


def hint(view: View, log: Sequence[tuple[int, str]], seed: int = 0) -> list[tuple[Action, float]]:
    """(action, estimated chance of not being the durak), best first; only the seat's own view is used."""
    if not view.legal_actions:
        return []
    values = HardPlayer(seed=seed).evaluate(view, list(log), prune=False)
    ranked = sorted(values.items(), key=lambda item: -item[1])
    return [(action, min(1.0, max(0.0, value))) for action, value in ranked]
