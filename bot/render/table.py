"""The group's table: built only from the spectator view, the seats and the public events."""

from __future__ import annotations

from bot.buttons import OpenHand
from bot.effects import Button, Line, Message
from bot.i18n import Translator
from bot.payloads import Payload
from bot.render.app_button import open_app_button
from bot.render.clock import turn_length_text
from bot.render.lobby import seat_name
from bot.render.rules import rules_in_short
from bot.render.text import SUIT_SYMBOL, bold, card, line, message
from bot.session import Playing, TableEvent
from core import Card, Phase, Settings, View
from core.commitment import short


def describe_event(event: TableEvent, names: list[str], tr: Translator) -> str:
    _ = tr._
    who = names[event.seat] if 0 <= event.seat < len(names) else ""
    texts = {
        "played": lambda: _("{who} played {card}").format(who=who, card=card(event.card)),
        # TRANSLATORS: an attacker adds a card of a rank already on the table
        "threw_in": lambda: _("{who} threw in {card}").format(who=who, card=card(event.card)),
        "covered": lambda: _("{who} beat {target} with {card}").format(
            who=who, target=card(event.target), card=card(event.card)
        ),
        "transferred": lambda: _("{who} transferred with {card} to {target}").format(
            who=who, card=card(event.card), target=names[int(event.target)]
        ),
        "took": lambda: tr.n_("{who} took {n} card", "{who} took {n} cards", event.count).format(
            who=who, n=event.count
        ),
        # TRANSLATORS: the defender covered every card: the bout is over and its cards go to the discard pile
        "beaten_off": lambda: tr.n_(
            "{who} held off the attack: {n} card discarded",
            "{who} held off the attack: {n} cards discarded",
            event.count,
        ).format(who=who, n=event.count),
        # TRANSLATORS: a player got rid of their last card; {place} is an ordinal ("2nd") for the order out
        "out": lambda: _("{who} is out, {place}").format(who=who, place=place_name(event.count, tr)),
        "exchanged": lambda: _("{who} exchanged the lowest trump for {card}").format(
            who=who, card=card(event.card)
        ),
        "surrendered": lambda: _("{who} surrendered").format(who=who),
        "timeout": lambda: _("{who} ran out of time").format(who=who),
        # TRANSLATORS: {button} is the label of the table's "My hand" button
        "autopilot": lambda: _("the AI plays for {who} until they tap {button} under the table").format(
            who=who, button=f"“{_('My hand')}”"
        ),
    }
    return texts[event.kind]() if event.kind in texts else event.kind


def place_name(place: int, tr: Translator) -> str:
    """An ordinal for the order out ("2nd"); a table holds at most six players."""
    _ = tr._
    names = {
        # TRANSLATORS: ordinals for the order out, as in "Alice is out, 2nd"
        1: _("1st"),
        2: _("2nd"),
        3: _("3rd"),
        4: _("4th"),
        5: _("5th"),
        6: _("6th"),
    }
    return names.get(place, str(place))


def waiting_for(view: View, names: list[str], tr: Translator) -> str:
    _ = tr._
    if view.to_act is None:
        return ""
    who = names[view.to_act]
    if view.phase is Phase.ATTACK:
        return _("{who} attacks").format(who=who)
    if view.phase is Phase.DEFEND:
        return _("{who} defends").format(who=who)
    if view.phase is Phase.TAKING:
        return _("{who} takes; {thrower} may throw in more").format(who=names[view.defender], thrower=who)
    return _("{who} may throw in or pass").format(who=who)


def table_lines(view: View, tr: Translator) -> list[Line]:
    _ = tr._
    trump = SUIT_SYMBOL[view.trump]
    shown = f" ({card(view.trump_card)})" if view.trump_card is not None else ""
    if (
        view.severny_card is not None
    ):  # Severny: the drawn card that changed trumps, not the old turned-up one
        shown = f" ({card(view.severny_card)})"
    info = _("Trump {trump}{shown} · talon {talon} · discarded {discard}").format(
        trump=trump, shown=shown, talon=view.talon_size, discard=view.discard_size
    )
    lines = [line(info)]
    if view.table:
        pairs = ", ".join(pair_text(attack, cover, tr) for attack, cover in view.table)
        # TRANSLATORS: attack cards on the table out of the most this bout may hold: "1 of 6 cards"
        count = tr.n_("{n} of {limit} card", "{n} of {limit} cards", view.attack_limit).format(
            n=len(view.table), limit=view.attack_limit
        )
        lines.append(line(_("On the table: "), bold(pairs), f" · {count}"))
    return lines


def pair_text(attack: Card, cover: Card | None, tr: Translator) -> str:
    """One attack card and what became of it: "7♣ not covered", "7♣ beaten by 9♣"."""
    if cover is None:
        # TRANSLATORS: an attack card on the table that the defender has not covered yet
        return tr._("{card} not covered").format(card=card(attack))
    return tr._("{card} beaten by {cover}").format(card=card(attack), cover=card(cover))


def render_table(session: Playing, view: View, chat_id: str, tr: Translator, app: bool = False) -> Message:
    """``app``: the chat's platform has the web app: an "Open table" button beside "My hand"."""
    _ = tr._
    names = [seat.name for seat in session.seats]
    rules = " · ".join(rules_in_short(Settings.from_words(view.settings_words), tr))
    lines = [line(bold(_("Durak")), " · ", rules)]
    if session.deal_commitment:
        # TRANSLATORS: on the table from the start: the hash of the deck's order, opened with the result
        lines.append(line(_("Deal sealed: {seal}").format(seal=short(session.deal_commitment))))
    lines.extend(table_lines(view, tr))
    lines.append(line(""))
    for seat_no, seat in enumerate(session.seats):
        role = ""
        if seat_no in view.out:
            # TRANSLATORS: a seat's role: this player has no cards left and has left the game
            role = _("out")
        elif seat_no == view.attacker:
            role = _("attacker")
        elif seat_no == view.defender:
            role = _("defender")
        count = tr.n_("{n} card", "{n} cards", view.hand_sizes[seat_no]).format(n=view.hand_sizes[seat_no])
        marker = "▶ " if seat_no == view.to_act else "   "
        label = seat_name(seat, tr)
        lines.append(
            line(
                marker,
                bold(label) if seat_no == view.to_act else label,
                f" — {count}",
                f" · {role}" if role else "",
            )
        )
    lines.append(line(""))
    status = waiting_for(view, names, tr)
    if status:
        deadline = ""
        if session.turn_deadline is not None and not session.seats[view.to_act or 0].played_by_ai:
            deadline = " · " + turn_length_text(view, tr)  # a countdown here would freeze between edits
        lines.append(line(bold(status), deadline))
    for event in session.events[-3:]:
        lines.append(line("· ", describe_event(event, names, tr)))
    if view.is_over:
        return message(lines)  # no hand left to show: the result below has the next step (Rematch)
    buttons = [
        Button(
            _("My hand"),
            Payload(chat_id, session.game_id, view.step, OpenHand(), view.history).encode(),
            opens_private=True,
        )
    ]
    if app:
        buttons.append(open_app_button(chat_id, session.game_id, tr))
    return message(lines, [buttons])
