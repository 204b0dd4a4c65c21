"""The lines of a hand that are about the player rather than the cards: their place once they are out, and at
the end their own result. A hand is read far from the table (a private chat), so it says that itself. While
the player waits it says nothing of the table: the group's table shows whose turn it is
(`bot.game.screens.quiet_hand`)."""

from __future__ import annotations

from bot.i18n import Translator
from bot.render.table import place_name
from core.events import Result


def own_result(result: Result, seat: int, tr: Translator, by_ai: bool = False) -> str:
    """The player's own result, said on their hand at the end ("You are the durak.", "You finished 2nd.").
    ``by_ai``: the AI was still playing their seat (rules.md §9.6), which earns them nothing: said so, unless
    they lost, which they did as usual."""
    _ = tr._
    losers = set(result.losers) if result.losers else {result.durak}
    if by_ai and (result.draw or seat not in losers):
        return ai_finished_note(tr)
    if result.draw:
        return _("A draw: nobody is the durak.")
    if len(result.losers) > 1:  # a team game: partners share the result
        return _("Your team lost: you are the durak.") if seat in result.losers else _("Your team won.")
    if seat == result.durak:
        return _("You are the durak.")
    return finished(result.order_out, seat, tr)


def out_place(out: tuple[int, ...], seat: int, teams: bool, tr: Translator) -> str:
    """The place of a player who went out ("You finished 2nd."), said at once: the order out is fixed when
    they go (rules.md §7.2), so their hand need not change again at the end. Not in a team game, where the
    team's result comes only at the end."""
    return "" if teams else finished(out, seat, tr)


def finished(order_out: tuple[int, ...], seat: int, tr: Translator) -> str:
    """ "You finished 2nd." for a seat in the order out, "" for one not in it."""
    if seat not in order_out:
        return ""
    place = place_name(order_out.index(seat) + 1, tr)
    # TRANSLATORS: {place} is an ordinal for the order out, as in "Alice is out, 2nd"
    return tr._("You finished {place}.").format(place=place)


def ai_finished_note(tr: Translator) -> str:
    """Said on the hand of a seat the AI played until it went out, instead of "Well played!" and its place,
    and at the end: the AI's play is not its owner's win (rules.md §9.6)."""
    # TRANSLATORS: on the hand of a person whose seat the AI played to its end after their timeouts
    return tr._("The AI played your seat to the end: the game counts as played, with no points and no win.")
