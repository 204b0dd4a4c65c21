"""The turn clock as people read it. The table is edited too rarely to count down (a group gets ~20 messages a
minute), so it names a turn's length; the acting player's hand shows the time left, and `bot.game.clock` draws
it again at the marks of `ServiceConfig.clock_refresh` (30 and 10 seconds left)."""

from __future__ import annotations

from bot.i18n import Translator
from core import Settings, SettingsError, View


def turn_length(view: View) -> int:
    """The game's seconds per turn (0: no timer), read from its canonical rule words."""
    try:
        return Settings.from_words(view.settings_words).timer
    except SettingsError:  # never for words the game started with; a table without a clock line then
        return 0


def turn_length_text(view: View, tr: Translator) -> str:
    """ "60 s a turn"; empty without a timer."""
    seconds = turn_length(view)
    # TRANSLATORS: on the table beside whose turn it is: how long each turn may take, in seconds
    return tr._("{n} s a turn").format(n=seconds) if seconds else ""


def time_left_text(deadline: float, now: float, tr: Translator) -> str:
    """ "30 seconds left for your move." (the same words as the reminder at 15 seconds)."""
    left = max(0, round(deadline - now))
    return tr.n_("{n} second left for your move.", "{n} seconds left for your move.", left).format(n=left)
