"""One viewer's state JSON: what the page draws, built from the stored chat for that viewer only.

What the viewer may see of the chat is the read side's answer (`bot.queries.Seen`: whether they may see it,
their seat, their own seat's view, a finished game's result); this turns it into the contract's JSON. There
is no engine state here, only the viewer's `core.View`, so no other seat's cards can be drawn. Every text
comes from the renderers the chats use (`bot.render`), so the page and the chat say the same thing in the
same words. The page's own labels are in `adapters.web.strings`.
"""

from __future__ import annotations

from typing import Any

from adapters.web.links import game_ref, replay_ref
from bot.adapter import (
    FinalSeen,
    Finished,
    Lobby,
    Message,
    Move,
    Payload,
    Playing,
    Rematch,
    Seat,
    Seen,
    TableEvent,
    Translator,
    action_label,
    describe_event,
    own_result,
    prompt,
    render_lobby,
    rule_lines,
    rules_in_short,
    seat_label,
    translator,
    turn_length,
    waiting_for,
)
from core import Action, Kind, Settings, View
from core.commitment import short

State = dict[str, Any]
RECENT_EVENTS = 5  # the events a page lists under the table

ACTION_KINDS = {
    Kind.ATTACK: "attack",
    Kind.COVER: "cover",
    Kind.TRANSFER: "transfer",
    Kind.TAKE: "take",
    Kind.PASS: "pass",
    Kind.EXCHANGE: "swap",
}


def started_state(chat_id: str, seen: Seen, lang: str, now: float) -> State:
    """The state of `bot.queries.watch_offered`: phase "started", what to say, and the running game's ref to
    watch. No table: watching is the spectator's state of that ref, asked for when they choose to."""
    header = seen.header
    assert isinstance(header, Playing)
    tr = translator(lang)
    settings = Settings.from_words(seen.public.settings_words) if seen.public is not None else None
    rules = rules_in_short(settings, tr) if settings is not None else []
    # the header alone: the state's common fields, with no game drawn (the page draws none for "started")
    state = viewer_state(chat_id, Seen(seen.version, seen.sight, header, None, seen.lang), lang, now)
    # TRANSLATORS: on the web page of someone not playing who opened the lobby's link, once its game started
    status = tr._("The game has started without you. You can watch it.")
    state.update(
        {
            "phase": "started",
            "title": " · ".join([tr._("Durak"), *rules]),
            "status": status,
            "watch": game_ref(chat_id, header.game_id),
        }
    )
    return state


def viewer_state(chat_id: str, seen: Seen, lang: str, now: float) -> State:
    """The state JSON of the contract for the viewer ``seen`` is of (their seat, or a spectator)."""
    tr = translator(lang)
    header = seen.header
    state: State = {
        "ref": game_ref(chat_id, seen.ref_id),
        "version": seen.version,
        "now": now,  # the server's clock, for a countdown on a device whose clock is off
        "step": 0,
        "lang": tr.lang,
        "you": seen.seat,
        "seats": [],
        "trump": None,
        "trump_card": None,
        "talon": 0,
        "discard": 0,
        "table": [],
        "hand": [],
        "actions": [],
        "buttons": [],
        "deadline": None,
        "turn_seconds": None,
        "status": "",
        "events": [],
        "lobby": None,
        "result": None,
        "seal": "",
    }
    if isinstance(header, Lobby):
        state.update(lobby_part(header, chat_id, tr))
    elif isinstance(header, Playing) and seen.own is not None:
        state.update(game_part(chat_id, header.game_id, header.seats, seen.own, tr))
        state.update(turn_part(header, seen.own, tr))
        state["events"] = event_lines(header.events, header.seats, tr)
        if header.deal_commitment:  # the seal alone: its salt stays secret until the game is over
            state["seal"] = tr._("Deal sealed: {seal}").format(seal=short(header.deal_commitment))
    elif isinstance(header, Finished):
        state.update(finished_part(chat_id, header, seen.seat, seen.final, tr))
    return state


def lobby_part(lobby: Lobby, chat_id: str, tr: Translator) -> State:
    settings = Settings.from_words(lobby.words)
    message = render_lobby(lobby, chat_id, tr)
    return {
        "phase": "lobby",
        "title": plain_lines(message)[0],
        "seats": [seat_entry(seat, settings.teams) for seat in lobby.seats],
        "buttons": payload_buttons(message),
        "lobby": {
            "players": [seat_label(seat.name, seat.ai, tr) for seat in lobby.seats],
            "capacity": lobby.capacity,
            "rules": [plain(line) for line in rule_lines(settings, tr)],
            "lines": plain_lines(message),
        },
    }


def game_part(chat_id: str, game_id: str, seats: list[Seat], view: View, tr: Translator) -> State:
    """What the viewer's own view shows: seats as counts, the table, their hand, their legal moves."""
    names = [seat.name for seat in seats]
    settings = Settings.from_words(view.settings_words)
    shown_trump = view.severny_card if view.severny_card is not None else view.trump_card
    return {
        "phase": "over" if view.is_over else "play",
        "step": view.step,
        "title": " · ".join([tr._("Durak"), *rules_in_short(settings, tr)]),
        "seats": [
            seat_entry(seat, settings.teams)
            | {
                "cards": view.hand_sizes[number],
                "role": role(view, number),
                "acting": view.to_act == number,
                "passed": number in view.passed,
                "out": number in view.out,
            }
            for number, seat in enumerate(seats)
        ],
        "trump": view.trump,
        "trump_card": str(shown_trump) if shown_trump is not None else None,
        "talon": view.talon_size,
        "discard": view.discard_size,
        "table": [[str(attack), str(cover) if cover is not None else None] for attack, cover in view.table],
        "hand": [str(card) for card in view.hand],
        "actions": [action_entry(action, view, chat_id, game_id, tr) for action in view.legal_actions],
        "status": waiting_for(view, names, tr),
    }


def turn_part(header: Playing, view: View, tr: Translator) -> State:
    """The clock and the status line: the viewer's own prompt when it is their move."""
    part: State = {}
    acting = view.to_act
    if acting is not None and not header.seats[acting].played_by_ai:
        part["deadline"] = header.turn_deadline
        part["turn_seconds"] = turn_length(view) or None
    if acting is not None and acting == view.seat and view.legal_actions:
        part["status"] = prompt(view, tr) or waiting_for(view, [s.name for s in header.seats], tr)
    return part


def finished_part(
    chat_id: str, header: Finished, seat: int | None, final: FinalSeen | None, tr: Translator
) -> State:
    """A game that is over: its last position when the archive has it, the result, and Rematch."""
    teams = Settings.from_words(header.words).teams
    part: State = {
        "phase": "over",
        "title": " · ".join([tr._("Durak"), *rules_in_short(Settings.from_words(header.words), tr)]),
        "seats": [seat_entry(s, teams) for s in header.seats],
        "status": tr._("The game is over."),
    }
    rematch = Payload(chat_id, header.game_id, 0, Rematch()).encode()
    part["buttons"] = [{"label": tr._("Rematch"), "payload": rematch}]
    if final is None:
        return part
    part.update(game_part(chat_id, header.game_id, header.seats, final.view, tr))
    part["status"] = tr._("The game is over.")
    part["events"] = event_lines(final.events, header.seats, tr)
    part["result"] = {
        "lines": plain_lines(final.result_message),
        "you": own_result(final.result, seat, tr, seat in final.by_ai) if seat is not None else "",
    }
    part["buttons"] = payload_buttons(final.result_message)
    if seat is not None:  # the game step by step, ./?ref=<this> (replay.html): its players' only (may_watch)
        part["replay"] = replay_ref(chat_id, header.game_id)
    return part


def seat_entry(seat: Seat, teams: bool) -> State:
    return {
        "name": seat.name,
        "cards": 0,
        "role": "",
        "acting": False,
        "passed": False,
        "out": False,
        "ai": seat.is_ai,
        "team": seat.team if teams else None,
    }


def role(view: View, seat: int) -> str:
    if seat in view.out:
        return "out"
    if seat == view.defender:
        return "defender"
    if seat == view.attacker:
        return "attacker"
    if view.to_act == seat:
        return "thrower"  # throwing in, neither the attacker nor the defender
    return ""


def action_entry(action: Action, view: View, chat_id: str, game_id: str, tr: Translator) -> State:
    entry: State = {
        "kind": ACTION_KINDS.get(action.kind, action.kind.value),
        "label": action_label(action, view, tr),
        "payload": Payload(chat_id, game_id, view.step, Move(action), view.history).encode(),
    }
    if action.card is not None:
        entry["card"] = str(action.card)
    if action.kind is Kind.COVER:
        entry["target"] = action.slot
    return entry


def event_lines(events: list[TableEvent], seats: list[Seat], tr: Translator) -> list[str]:
    names = [seat.name for seat in seats]
    return [describe_event(event, names, tr) for event in events[-RECENT_EVENTS:]]


def payload_buttons(message: Message) -> list[State]:
    """The message's buttons that press something (a URL button has nothing to press on the page)."""
    return [
        {"label": button.label, "payload": button.payload}
        for row in message.buttons
        for button in row
        if button.payload
    ]


def plain(line: tuple[Any, ...]) -> str:
    return "".join(span.text for span in line)


def plain_lines(message: Message) -> list[str]:
    return [text for text in (plain(line) for line in message.lines) if text]
