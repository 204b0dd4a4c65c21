"""A pure Durak rules engine: no I/O, no clock, no global randomness.

Start with `new_game`, ask `legal_actions`, `apply` actions, and give players `view(seat)`.
docs/rules.md is the specification this package implements. A game in five lines (the suite runs it):

>>> from core import Settings, new_game
>>> game = new_game(Settings.from_words("deck=24"), ["Ann", "Bob"], seed=7)
>>> game.trump, game.to_act, game.legal_actions(1)[:2]
('S', 1, [Action('a:QD'), Action('a:QC')])
>>> game = game.apply(1, "a:QD")  # Bob leads the queen of diamonds
>>> game.view(0).table, game.legal_actions(0)  # Ann covers it with her ace, or takes
(((Card('QD'), None),), [Action('c:0:AD'), Action('t')])
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
