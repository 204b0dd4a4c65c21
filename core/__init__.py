"""A pure Durak rules engine: no I/O, no clock, no global randomness.

Start with `new_game`, ask `legal_actions`, `apply` actions, and give players `view(seat)`.
docs/rules.md is the specification this package implements.
"""

from core.actions import Action, IllegalAction, Kind
from core.cards import Card, beats
from core.deal import SetupError, new_game, replay
from core.events import Result
from core.settings import Settings, SettingsError
from core.state import Game, Phase
from core.view import View

__all__ = [
    "Action", "Card", "Game", "IllegalAction", "Kind", "Phase", "Result", "SettingsError", "SetupError",
    "Settings", "View", "beats", "new_game", "replay",
]  # fmt: skip
