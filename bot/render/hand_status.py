"""The lines of a hand that are about the player rather than the cards: who they are waiting for, and at
the end their own result. A hand is read far from the table (a private chat), so it says both itself."""

from __future__ import annotations

from bot.i18n import Translator
from bot.render.table import place_name
from core import Phase, View
from core.events import Result


def waiting_line(view: View, names: list[str], tr: Translator) -> str:
    """Who plays the bout the player ``view.seat`` waits in ("Ann is attacking, Bob is defending"; "Ann is
    attacking you"). It names the bout, not each tap in it, so a waiting hand changes once a bout (and on a
    take), not with every card: a message edit per waiting player per card would cost more Bot API calls
    than the whole table. Empty when nobody acts."""
    _ = tr._
    if view.to_act is None or view.is_over:
        return ""
    attacker, defender = names[view.attacker], names[view.defender]
    mine = view.seat == view.defender
    if view.phase is Phase.TAKING:
        if mine:
            return _("You are taking the cards; the others may throw in more")
        return _("{defender} is taking the cards").format(defender=defender)
    if mine:
        # TRANSLATORS: a waiting player's hand: {attacker} leads the bout against this player
        return _("{attacker} is attacking you").format(attacker=attacker)
    # TRANSLATORS: a waiting player's hand: the bout being played while they wait
    return _("{attacker} is attacking, {defender} is defending").format(attacker=attacker, defender=defender)


def own_result(result: Result, seat: int, tr: Translator) -> str:
    """The player's own result, said on their hand at the end ("You are the durak.", "You finished 2nd.")."""
    _ = tr._
    if result.draw:
        return _("A draw: nobody is the durak.")
    if len(result.losers) > 1:  # a team game: partners share the result
        return _("Your team lost: you are the durak.") if seat in result.losers else _("Your team won.")
    if seat == result.durak:
        return _("You are the durak.")
    if seat in result.order_out:
        place = place_name(result.order_out.index(seat) + 1, tr)
        # TRANSLATORS: {place} is an ordinal for the order out, as in "Alice is out, 2nd"
        return _("You finished {place}.").format(place=place)
    return ""
