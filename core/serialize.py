"""JSON for a `Game`: the whole state (so loading is cheap) plus the seed, deck and log (so it replays).

The actions are stored as ``log``, the events that followed them as ``events``: one group per step, the
deal's first (``b016||B16SQS d0AS d1KS b106``: the first bout; nothing after the lead; after the cover, the
bout beaten off, two draws and the next bout). A game saved before events were recorded has no ``events``:
loading rebuilds them by replaying its actions from the stored deck.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from core.actions import Action
from core.cards import CARDS, Card
from core.deal import replay
from core.events import (
    BoutEnded,
    BoutStarted,
    Drew,
    Event,
    GameOver,
    Result,
    TrumpExchanged,
    TrumpsChanged,
    TurnedUpCardDrawn,
    WentOut,
)
from core.settings import Settings
from core.state import Game, Phase

FORMAT_VERSION = 1


def _cards(ids: tuple[int, ...] | list[int]) -> str:
    return "".join([CARD_CODES[c] for c in ids])


CARD_CODES = tuple(str(card) for card in CARDS)


@lru_cache(maxsize=4096)
def _deck(order: tuple[int, ...]) -> str:
    """A game's deck order never changes, and it is written at every save: spelled out once per game."""
    return _cards(order)


def _log(game: Game) -> tuple[str, str]:
    """``0a:6S,1c:0:9S,...``: every action as seat and code, oldest first; and the events, one group per step
    (``|`` between steps, the deal's first; a space between two events of one step).

    A game saved or loaded before in this line (a move's copy inherits the memo) only spells out what was
    added since: saving after each move stays as cheap at move 300 as at move 3."""
    memo = game._json_memo
    stop = memo[0] if memo is not None else None
    actions: list[str] = []
    steps: list[str] = []
    events: list[str] = []  # of the step being read, newest first
    node = game._log
    while node is not stop and node is not None:
        node, seat, entry = node
        if seat >= 0:
            actions.append(f"{seat}{entry.code}")
            steps.append(" ".join(events[::-1]))
            events = []
        else:
            events.append(event_code(entry))
    if node is not stop:  # not a memo of this game's line after all: spell out everything
        game._json_memo = None
        return _log(game)
    actions.reverse()
    steps.reverse()
    if memo is None:
        texts = ",".join(actions), "|".join([" ".join(events[::-1]), *steps])
    else:  # the memo ends with a whole step: what follows starts with an action
        texts = ",".join([memo[1], *actions] if memo[1] else actions), "|".join([memo[2], *steps])
    game._json_memo = (game._log, *texts)
    return texts


def event_code(event: Event) -> str:
    """A short ASCII code: a letter for the kind, then seats, counts and card codes (``B1`` + ``6SQS``: seat
    1 beat off six and queen of spades)."""
    if isinstance(event, Drew):
        seat, number, drawn = event
        return f"d{seat}{_mask(drawn)}" if drawn is not None else f"d{seat}?{number}"
    if isinstance(event, BoutStarted):
        attacker, defender, cap = event
        return f"b{attacker}{defender}{cap}"
    if isinstance(event, BoutEnded):
        defender, taken, cards = event
        return f"{'T' if taken else 'B'}{defender}{_mask(cards)}"
    if isinstance(event, TurnedUpCardDrawn):
        seat, card = event
        return f"u{seat}{CARD_CODES[card]}"
    if isinstance(event, TrumpsChanged):
        seat, card = event
        return f"s{seat}{CARD_CODES[card]}"
    if isinstance(event, TrumpExchanged):
        seat, turned_up, lowest = event
        return f"e{seat}{CARD_CODES[turned_up]}{CARD_CODES[lowest]}"
    if isinstance(event, WentOut):
        seat, place = event
        return f"o{seat}{place}"
    if isinstance(event, GameOver):
        return "g"
    raise TypeError(f"not an event: {event!r}")


def parse_event(code: str, result: Result | None) -> Event:
    """The event of ``event_code``; a game-over event takes the game's stored ``result``."""
    kind = code[:1]
    if kind == "g" and result is not None:
        return GameOver(result)
    seat, rest = int(code[1:2]), code[2:]
    if kind == "d":
        return (
            Drew(seat, int(rest[1:]), None) if rest[:1] == "?" else Drew(seat, len(rest) // 2, _mask_of(rest))
        )
    if kind == "b":
        return BoutStarted(seat, int(rest[:1]), int(rest[1:]))
    if kind == "B" or kind == "T":
        return BoutEnded(seat, kind == "T", _mask_of(rest))
    if kind == "u":
        return TurnedUpCardDrawn(seat, _id(rest))
    if kind == "s":
        return TrumpsChanged(seat, _id(rest))
    if kind == "e":
        return TrumpExchanged(seat, _id(rest[:2]), _id(rest[2:]))
    if kind == "o":
        return WentOut(seat, int(rest))
    raise ValueError(f"unknown event code {code!r}")


def _mask(cards: int) -> str:
    codes = []
    while cards:
        low = cards & -cards
        codes.append(CARD_CODES[low.bit_length() - 1])
        cards ^= low
    return "".join(codes)


def _mask_of(text: str) -> int:
    mask = 0
    for i in range(0, len(text), 2):
        mask |= 1 << _id(text[i : i + 2])
    return mask


_CARD_IDS = {code: card for card, code in enumerate(CARD_CODES)}


def _id(code: str) -> int:
    """A card code as written by `_cards` (a dictionary look-up: loading reads a few hundred of them)."""
    card = _CARD_IDS.get(code)
    return card if card is not None else Card.parse(code).id


def _ids(text: str) -> tuple[int, ...]:
    return tuple([_id(text[i : i + 2]) for i in range(0, len(text), 2)])


def game_to_json(game: Game) -> str:
    result = game.result
    log, events = _log(game)
    data: dict[str, Any] = {
        "format": FORMAT_VERSION,
        "settings": game.settings.model_dump(),
        "players": list(game.players),
        "seed": game.seed,
        "deck": _deck(game.deck_order),
        "dealer": game.dealer,
        "last_durak": game.last_durak,
        "hands": list(game.hand_masks),
        "talon": _cards(game.talon),
        "trump_card": str(CARDS[game.trump_card_id]),
        "deal_trump_card": str(CARDS[game.deal_trump_card_id]),
        "discard": game.discard,
        "attacks": _cards(game.attacks),
        "covers": [str(CARDS[c]) if c >= 0 else "" for c in game.covers],
        "phase": game.phase.value,
        "attacker": game.attacker,
        "opener": game.opener,
        "defender": game.defender,
        "defender_limit": game.defender_limit,
        "bout_cap": game.bout_cap,
        "bout_number": game.bout_number,
        "passed": game.passed,
        "to_act": game.to_act,
        "out": list(game.out),
        "emptied": list(game.emptied),
        "positions": sorted(game.positions),
        "result": None
        if result is None
        else [result.durak, result.draw, list(result.order_out), result.reason, list(result.losers)],
        "log": log,
        "events": events,
        "severny_card": str(CARDS[game.severny_card]) if game.severny_card >= 0 else "",
    }
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def game_from_json(text: str) -> Game:
    data = json.loads(text)
    if data.get("format") != FORMAT_VERSION:
        raise ValueError(f"unknown game format {data.get('format')!r}")
    raw = data["result"]
    result = None if raw is None else Result(raw[0], raw[1], tuple(raw[2]), raw[3], tuple(raw[4]))
    severny = data.get("severny_card", "")
    actions = [(int(entry[0]), Action.parse(entry[1:])) for entry in data["log"].split(",") if entry]
    facts: dict[str, Any] = {
        "settings": Settings.model_validate(data["settings"]),
        "players": tuple(data["players"]),
        "seed": data["seed"],
        "deck_order": _ids(data["deck"]),
        "dealer": data["dealer"],
        "last_durak": data["last_durak"],
        "hand_masks": tuple(data["hands"]),
        "talon": _ids(data["talon"]),
        "trump_card_id": Card.parse(data["trump_card"]).id,
        "deal_trump_card_id": Card.parse(data["deal_trump_card"]).id,
        "severny_card": Card.parse(severny).id if severny else -1,
        "discard": data["discard"],
        "attacks": _ids(data["attacks"]),
        "covers": tuple(Card.parse(c).id if c else -1 for c in data["covers"]),
        "phase": Phase(data["phase"]),
        "attacker": data["attacker"],
        "opener": data["opener"],
        "defender": data["defender"],
        "defender_limit": data["defender_limit"],
        "bout_cap": data["bout_cap"],
        "bout_number": data["bout_number"],
        "passed": data["passed"],
        "to_act": data["to_act"],
        "out": tuple(data["out"]),
        "emptied": tuple(data["emptied"]),
        "positions": frozenset(data["positions"]),
        "result": result,
        "step": len(actions),
    }
    if "events" in data:
        game = Game(**facts, log=_linked(actions, data["events"], result))
        game._json_memo = (game._log, data["log"], data["events"])
        return game
    return _replayed(facts, actions)  # saved before the engine recorded events


def _linked(actions: list[tuple[int, Action]], text: str, result: Result | None) -> tuple[Any, ...] | None:
    """The log as `core.state` keeps it, each action followed by the events of its step (see `_log`)."""
    steps = text.split("|")
    if len(steps) != len(actions) + 1:
        raise ValueError(f"{len(steps)} groups of events for {len(actions)} actions")
    node: tuple[Any, ...] | None = None
    for step, events in enumerate(steps):
        if step:
            seat, action = actions[step - 1]
            node = (node, seat, action)
        if events:
            for code in events.split(" "):
                node = (node, -1, parse_event(code, result))
    return node


def _replayed(facts: dict[str, Any], actions: list[tuple[int, Action]]) -> Game:
    """A game stored without events, with its log rebuilt by replaying its actions from the stored deck; the
    replay must arrive at the stored state."""
    again = replay(
        facts["settings"],
        facts["players"],
        deck=[CARDS[c] for c in facts["deck_order"]],
        log=[(seat, action.code) for seat, action in actions],
        dealer=facts["dealer"],
        last_durak=facts["last_durak"],
    )
    game = Game(**facts, log=again._log)
    stored, replayed = json.loads(game_to_json(game)), json.loads(game_to_json(again))
    if {**stored, "seed": None} != {**replayed, "seed": None}:
        raise ValueError("the stored game's actions do not replay to its stored state")
    return game
