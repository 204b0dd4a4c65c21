"""A player's private hand: their cards and one button per legal action, built from their own view."""

from __future__ import annotations

from bot.buttons import Move
from bot.effects import Button, Message
from bot.i18n import Translator
from bot.payloads import Payload
from bot.render.app_button import open_app_button
from bot.render.clock import time_left_text
from bot.render.hand_layout import CHAT_HAND, HandLayout
from bot.render.hand_status import ai_finished_note, out_place, own_result
from bot.render.table import table_lines
from bot.render.text import SUIT_SYMBOL, bold, card, cards, line, message, rows
from bot.session import Playing
from core import Action, Kind, Settings, View


def action_label(action: Action, view: View, tr: Translator) -> str:
    """Button text; a cover names its target only when the card could cover more than one attack."""
    _ = tr._
    if action.kind is Kind.ATTACK:
        return card(action.card or "")
    if action.kind is Kind.COVER:
        targets = sum(1 for a in view.legal_actions if a.kind is Kind.COVER and a.card_id == action.card_id)
        covered = view.table[action.slot][0]
        return f"{card(action.card or '')} → {card(covered)}" if targets > 1 else card(action.card or "")
    if action.kind is Kind.TRANSFER:
        return _("Transfer {card}").format(card=card(action.card or ""))
    if action.kind is Kind.TAKE:
        return _("Take")
    if action.kind is Kind.PASS:
        return _("Pass")
    if action.kind is Kind.EXCHANGE:
        # TRANSLATORS: button: give the lowest trump for the turned-up trump card {card}
        return _("Swap for {card}").format(card=card(view.trump_card) if view.trump_card else "")
    return action.code


def played_note(action: Action, view: View, tr: Translator) -> str:
    """The answer to the press of ``action`` (``view``: the presser's, before it), shown as a toast over the
    hand message while the hand is drawn anew."""
    _ = tr._
    if action.kind is Kind.ATTACK:
        # TRANSLATORS: the answer to a pressed card button, over the hand message that still shows it
        return _("You played {card}.").format(card=card(action.card or ""))
    if action.kind is Kind.COVER:
        covered = view.table[action.slot][0]
        return _("You beat {target} with {card}.").format(card=card(action.card or ""), target=card(covered))
    if action.kind is Kind.TRANSFER:
        return _("You transferred with {card}.").format(card=card(action.card or ""))
    if action.kind is Kind.TAKE:
        return _("You take the cards.")
    if action.kind is Kind.PASS:
        return _("You passed.")
    return ""


def prompt(view: View, tr: Translator) -> str:
    _ = tr._
    kinds = {a.kind for a in view.legal_actions}
    if Kind.COVER in kinds or Kind.TAKE in kinds:
        return (
            _("Your move: cover, or take the cards.")
            if Kind.TRANSFER not in kinds
            else _("Your move: cover, transfer, or take the cards.")
        )
    if Kind.PASS in kinds:
        return _("You may throw in a card, or pass.")
    if Kind.ATTACK in kinds:
        return _("Your move: attack with any card.")
    return ""


def render_hand(
    session: Playing,
    view: View,
    chat_id: str,
    tr: Translator,
    now: float | None = None,
    layout: HandLayout = CHAT_HAND,
    app: bool = False,
) -> Message:
    """``now``: when drawn, for the time left on the acting player's hand (none shown without it).
    ``layout``: where the hand is seen (`bot.render.hand_layout`): the terminal's repeats nothing of the
    table drawn above it and speaks of typing, not of buttons. ``app``: the chat's platform has the web
    app: an "Open table" button under the hand while the game runs."""
    _ = tr._
    seat = view.seat if view.seat is not None else -1
    title = session.chat_title or _("this chat")
    lines = [line(bold(_("Durak in {chat}").format(chat=title)))]
    buttons: list[list[Button]] = []
    turn_actions = [a for a in view.legal_actions if a.kind is not Kind.EXCHANGE]
    my_turn = view.to_act == seat and bool(turn_actions)
    if layout.table_beside:
        lines = []  # the table, title and all, is drawn right above the hand
    elif my_turn:
        # the table changes with every move, so only the player who must answer it gets it here
        lines.extend(table_lines(view, tr))
    else:
        lines.append(line(_("Trump: {suit}").format(suit=SUIT_SYMBOL[view.trump])))
    lines.append(line(_("Your cards: "), bold(cards(view.hand))))
    if view.is_over:
        lines.append(line(_("The game is over.")))
        by_ai = 0 <= seat < len(session.seats) and session.seats[seat].left_to_ai
        mine = own_result(view.result, seat, tr, by_ai) if view.result is not None else ""
        if mine:
            lines.append(line(bold(mine)))
        return message(lines)
    if seat in view.out and session.seats[seat].left_to_ai:  # not theirs to be proud of (rules.md §9.6)
        lines.append(line(bold(ai_finished_note(tr))))
    elif seat in view.out:
        lines.append(line(_("You are out. Well played!")))
        place = out_place(view.out, seat, Settings.from_words(view.settings_words).teams, tr)
        if place:
            lines.append(line(bold(place)))
    elif my_turn:
        lines.append(line(bold(prompt(view, tr))))
        if now is not None and session.turn_deadline is not None:
            lines.append(line(time_left_text(session.turn_deadline, now, tr)))
    elif layout.buttons:
        # nothing of the table while waiting: the group's table shows whose turn it is and the clock, and a
        # hand is edited when what its player holds or can do changes, not at every move of the others
        lines.append(line(_("Not your turn: the buttons appear here when it is.")))
    else:
        lines.append(line(_("Not your turn: a card, t or p typed now is played when your turn comes.")))

    def button(action: Action) -> Button:
        return Button(
            action_label(action, view, tr),
            Payload(chat_id, session.game_id, view.step, Move(action), view.history).encode(),
        )

    # card buttons in the order the hand is shown (plain cards by rank, trumps last), covers by their target
    order = {card.id: place for place, card in enumerate(view.hand)}
    playable = sorted(
        (a for a in turn_actions if a.kind in (Kind.ATTACK, Kind.COVER)),
        key=lambda a: (order[a.card_id], a.slot),
    )
    card_buttons = [button(a) for a in playable]
    other_buttons = [button(a) for a in view.legal_actions if a.kind not in (Kind.ATTACK, Kind.COVER)]
    buttons.extend(rows(card_buttons, 4))
    buttons.extend(rows(other_buttons, 3))
    if app:
        buttons.append([open_app_button(chat_id, session.game_id, tr)])
    return message(lines, buttons)
