"""The group's table: built only from the spectator view, the seats and the public events."""

from __future__ import annotations

from bot import payloads
from bot.effects import Button, Line, Message
from bot.i18n import Translator
from bot.payloads import Payload
from bot.render.lobby import seat_label
from bot.render.text import SUIT_SYMBOL, bold, card, line, message
from bot.session import Event, Playing
from core import Phase, View


def describe_event(event: Event, names: list[str], tr: Translator) -> str:
    _ = tr._
    who = names[event.seat] if 0 <= event.seat < len(names) else ""
    texts = {
        "played": lambda: _("{who} played {card}").format(who=who, card=card(event.card)),
        "covered": lambda: _("{who} covered {target} with {card}").format(
            who=who, target=card(event.target), card=card(event.card)
        ),
        "transferred": lambda: _("{who} transferred with {card} to {target}").format(
            who=who, card=card(event.card), target=names[int(event.target)]
        ),
        "took": lambda: tr.n_("{who} took {n} card", "{who} took {n} cards", event.count).format(
            who=who, n=event.count
        ),
        "beaten_off": lambda: tr.n_(
            "{who} beat off {n} card", "{who} beat off {n} cards", event.count
        ).format(who=who, n=event.count),
        # TRANSLATORS: {place} is the order out: 1 for the first player out of cards, 2 for the next
        "out": lambda: _("{who} is out ({place}.)").format(who=who, place=event.count),
        "exchanged": lambda: _("{who} exchanged the lowest trump for {card}").format(
            who=who, card=card(event.card)
        ),
        "surrendered": lambda: _("{who} surrendered").format(who=who),
        "timeout": lambda: _("{who} ran out of time").format(who=who),
        "autopilot": lambda: _("the AI plays for {who} until they tap again").format(who=who),
    }
    return texts[event.kind]() if event.kind in texts else event.kind


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
        pairs = "  ".join(f"{card(a)}/{card(c) if c is not None else '·'}" for a, c in view.table)
        lines.append(line(_("On the table: "), bold(pairs), f"  ({len(view.table)}/{view.attack_limit})"))
    return lines


def render_table(session: Playing, view: View, chat_id: str, now: float, tr: Translator) -> Message:
    _ = tr._
    names = [seat.name for seat in session.seats]
    # TRANSLATORS: the game mode when no rule words were given
    mode = view.settings_words or _("classic")
    lines = [line(bold(_("Durak")), " · ", mode)]
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
        label = seat_label(seat.name, seat.ai, tr)
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
            left = max(0, round(session.turn_deadline - now))
            deadline = " · " + tr.n_("{n} second left", "{n} seconds left", left).format(n=left)
        lines.append(line(bold(status), deadline))
    for event in session.events[-3:]:
        lines.append(line("· ", describe_event(event, names, tr)))
    buttons = [
        Button(
            _("My hand"),
            Payload(chat_id, session.game_id, view.step, payloads.HAND).encode(),
            opens_private=True,
        )
    ]
    return message(lines, [buttons])
