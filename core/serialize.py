"""JSON for a `Game`: the whole state (so loading is cheap) plus the seed, deck and log (so it replays)."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from core.actions import Action
from core.cards import CARDS, Card, ranks_on_table
from core.settings import Settings
from core.state import Game, Phase, Result

FORMAT_VERSION = 1


def _cards(ids: tuple[int, ...] | list[int]) -> str:
    return "".join([CARD_CODES[c] for c in ids])


CARD_CODES = tuple(str(card) for card in CARDS)


@lru_cache(maxsize=4096)
def _deck(order: tuple[int, ...]) -> str:
    """A game's deck order never changes, and it is written at every save: spelled out once per game."""
    return _cards(order)


def _log(game: Game) -> str:
    """``0a:6S,1c:0:9S,...``: every action as seat and code, oldest first."""
    parts: list[str] = []
    node = game._log
    while node is not None:
        node, seat, action = node
        parts.append(f"{seat}{action.code}")
    parts.reverse()
    return ",".join(parts)


def _ids(text: str) -> tuple[int, ...]:
    return tuple(Card.parse(text[i : i + 2]).id for i in range(0, len(text), 2))


def game_to_json(game: Game) -> str:
    result = game.result
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
        "log": _log(game),
        "severny_card": str(CARDS[game.severny_card]) if game.severny_card >= 0 else "",
    }
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def game_from_json(text: str) -> Game:
    data = json.loads(text)
    if data.get("format") != FORMAT_VERSION:
        raise ValueError(f"unknown game format {data.get('format')!r}")
    game = object.__new__(Game)
    game.settings = Settings.model_validate(data["settings"])
    game.players = tuple(data["players"])
    game.seed = data["seed"]
    game.deck_order = _ids(data["deck"])
    game.dealer = data["dealer"]
    game.last_durak = data["last_durak"]
    game.hand_masks = tuple(data["hands"])
    game.talon = _ids(data["talon"])
    game.trump_card_id = Card.parse(data["trump_card"]).id
    game.trump_index = game.trump_card_id & 3
    game.deal_trump_card_id = Card.parse(data["deal_trump_card"]).id
    game.discard = data["discard"]
    game.attacks = _ids(data["attacks"])
    game.covers = tuple(Card.parse(c).id if c else -1 for c in data["covers"])
    table_ranks = ranks_on_table(game.attacks, game.covers)
    game.table_ranks = table_ranks
    game.phase = Phase(data["phase"])
    game.attacker = data["attacker"]
    game.opener = data["opener"]
    game.defender = data["defender"]
    game.defender_limit = data["defender_limit"]
    game.bout_cap = data["bout_cap"]
    game.bout_number = data["bout_number"]
    game.passed = data["passed"]
    game.to_act = data["to_act"]
    game.out = tuple(data["out"])
    game.emptied = tuple(data["emptied"])
    game.positions = frozenset(data["positions"])
    raw = data["result"]
    game.result = None if raw is None else Result(raw[0], raw[1], tuple(raw[2]), raw[3], tuple(raw[4]))
    severny = data.get("severny_card", "")
    game.severny_card = Card.parse(severny).id if severny else -1
    node: tuple[Any, ...] | None = None
    entries = data["log"].split(",") if data["log"] else []
    for entry in entries:
        node = (node, int(entry[0]), Action.parse(entry[1:]))
    game._log = node
    game.step = len(entries)
    return game
