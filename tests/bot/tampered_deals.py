"""Archived games whose sealed deal was honoured, or broken in one way each: the records that `durak-bot verify`
(`core.commitment.verify`) and the replay page's check (adapters/web/static/seal.js) are both tested on, so
that the two refuse the same records for the same reason (docs/fairness.md).

A record is written by the bot's own writer (`bot.game.archive.archive`), then changed as a cheating dealer
would have had to: the seal shows the deck ``sealed``, the game is dealt and played from another deck, and
the record reveals ``sealed`` with the game that was played (its own deck, its log, its result).
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from bot.context import Context, ServiceConfig
from bot.game.archive import archive
from bot.session import Playing, Seat
from core import Action, Card, Game, Settings, new_game
from core.actions import Kind
from core.commitment import commitment, dealt_order, deck_text, sealed_text
from core.events import Drew, TrumpExchanged
from core.state import HAND_SIZE
from storage import ChatRef
from storage.models import ChatRecord

CHAT = ChatRef("tg", "-100777")
SALT = "5be0c1a2d3e4f5061728394a5b6c7d8e"  # 32 hexadecimal digits, as `core.commitment.new_salt` makes them
NAMES = ("Ann", "Bob", "Cid", "Dan", "Eva", "Fay")


@dataclass(frozen=True, slots=True)
class DealRecord:
    """An archived game, honest (``refused_by`` None) or changed so that one check must refuse it: the name
    of that check (`core.commitment.CHECKS`) and the step it fails at (None where a check has no step)."""

    name: str
    record: str
    refused_by: str | None = None
    step: int | None = None


def played(game: Game, rng: random.Random) -> Game:
    """``game`` played to its end with random legal moves (no surrender, while anything else is legal)."""
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        legal = game.legal_actions(seat)
        game = game.apply(seat, rng.choice([a for a in legal if a.kind is not Kind.SURRENDER] or legal))
    return game


def record_of(ended: Game, sealed: list[Card] | None = None, salt: str = SALT) -> dict[str, object]:
    """The archive the bot writes for ``ended`` (as a dict), its seal made of ``sealed`` (by default the deck
    the game was dealt from) and revealing it."""
    sealed = dealt_order(ended) if sealed is None else sealed
    seats = [Seat(user_id=f"u{n}", name=name) for n, name in enumerate(ended.players)]
    header = Playing(
        game_id="sealtest",
        creator="u0",
        seats=seats,
        started_at=1_000.0,
        deal_commitment=commitment(sealed, salt),
        deal_salt=salt,
    )
    ctx = Context(
        chat=CHAT,
        record=ChatRecord(),
        now=2_000.0,
        new_id=lambda: "sealtest",
        new_seed=lambda: 0,
        config=ServiceConfig(),
    )
    data: dict[str, object] = json.loads(archive(ctx, header, ended))
    data["deal"] = {"commitment": commitment(sealed, salt), "salt": salt, "order": deck_text(sealed)}
    return data


def as_json(data: dict[str, object]) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def drawn_by_draw(game: Game) -> list[tuple[int, int, list[int]]]:
    """Every refill draw of a finished game as (step, seat, card ids drawn)."""
    return [
        (step, event.seat, [c for c in range(52) if event.cards >> c & 1])
        for step, event in game.events()
        if isinstance(event, Drew) and event.cards is not None
    ]


def played_cards(game: Game) -> set[int]:
    """Every card some seat put on the table in ``game`` (attacks, covers, transfers)."""
    return {Action.parse(code).card_id for _seat, code in game.log if Action.parse(code).card_id >= 0}


def never_played_pairs(ended: Game) -> Iterator[tuple[int, int, int]]:
    """Pairs of cards drawn in two different draws and never played, each with the step of its earlier draw:
    swapped in the deck, they change what two draws gave, and maybe no move of the game."""
    played_ids = played_cards(ended)
    unplayed = [
        (step, draw, card)
        for draw, (step, _seat, cards) in enumerate(drawn_by_draw(ended))
        for card in cards
        if card not in played_ids and card != ended.deal_trump_card_id
    ]
    for i, (step, draw, card) in enumerate(unplayed):
        for _later, other_draw, other in unplayed[i + 1 :]:
            if other_draw != draw:
                yield card, other, step


def swap_unseen_by_the_moves(dealt: Game, ended: Game) -> tuple[Game, int] | None:
    """``ended`` played again, move for move to the same result, from a deck in which two cards drawn and
    never played are swapped (a card a seat could have played, or not, changes what the engine offers, so
    not every such pair will do); and the step of the first draw it changed. None when no pair will do."""
    sealed = dealt_order(dealt)
    for first, second, step in never_played_pairs(ended):
        try:
            cheated = replayed_from(ended, swapped(sealed, first, second))
        except ValueError:
            continue
        if cheated.result == ended.result:
            return cheated, step
    return None


def swapped(order: list[Card], first: int, second: int) -> list[Card]:
    """``order`` with the cards of ids ``first`` and ``second`` in each other's place."""
    ids = [card.id for card in order]
    i, j = ids.index(first), ids.index(second)
    changed = list(order)
    changed[i], changed[j] = changed[j], changed[i]
    return changed


def replayed_from(ended: Game, deck: list[Card]) -> Game:
    """``ended``'s moves made again in a game dealt from ``deck``; ValueError when one is not possible."""
    game = new_game(ended.settings, ended.players, deck=deck, dealer=ended.dealer)
    for seat, code in ended.log:
        game = game.apply(seat, code)
    return game


def games(settings: Settings, players: int, seed: int) -> Iterator[tuple[Game, Game]]:
    """Games of these rules, one per seed from ``seed`` on: (as dealt, as ended)."""
    while True:
        rng = random.Random(seed)
        dealt = new_game(settings, list(NAMES[:players]), seed=rng.getrandbits(63))
        yield dealt, played(dealt, rng)
        seed += 1


def never_played_swaps(count: int, seed: int = 0) -> list[DealRecord]:
    """Of ``count`` two-player games (one per seed from ``seed`` on), a record of each that has two cards drawn
    and never played whose swap changes no move: the game dealt from the deck with the two swapped, which only
    the draws tell from the sealed deck's."""
    records = []
    for dealt, ended in itertools.islice(games(Settings(), 2, seed), count):
        found = swap_unseen_by_the_moves(dealt, ended)
        if found is not None:
            data = record_of(found[0], dealt_order(dealt))
            records.append(
                DealRecord("two cards drawn and never played swapped", as_json(data), "draws", found[1])
            )
    return records


def cheated(settings: Settings, players: int, deck: list[Card], seed: int) -> Game:
    """The cheating dealer's game: dealt from ``deck`` (not the sealed one) and played to its end."""
    return played(new_game(settings, list(NAMES[:players]), deck=deck), random.Random(seed))


def first_with_a_durak(settings: Settings, players: int, seed: int) -> tuple[Game, Game]:
    """The first game from ``seed`` on that ends with a durak: (as dealt, as ended)."""
    return next((d, e) for d, e in games(settings, players, seed) if e.result and e.result.durak is not None)


def exchange_and_severny() -> Game:
    """A finished three-player game in which a trump was exchanged and Severny turned a card up."""
    settings = Settings(mode="transfer", exchange="lowest", severny=True)
    return next(
        ended
        for _dealt, ended in games(settings, 3, 1)
        if any(code == "e" for _seat, code in ended.log) and ended.severny_card >= 0
    )


def deal_of(data: dict[str, object]) -> dict[str, str]:
    """A record's revealed deal: commitment, salt and order."""
    deal = data["deal"]
    assert isinstance(deal, dict)
    return dict(deal)


def hash_broken(honest: dict[str, object], sealed: list[Card]) -> list[DealRecord]:
    """Revealed salts and orders that do not give the seal, or a salt that is not 128 bits."""
    reordered = swapped(sealed, sealed[1].id, sealed[-2].id)
    short_salt = SALT[:30]
    short = {"commitment": commitment(sealed, short_salt), "salt": short_salt, "order": deck_text(sealed)}
    return [
        DealRecord(
            "another salt revealed", as_json(honest | {"deal": deal_of(honest) | {"salt": "f" * 32}}), "hash"
        ),
        DealRecord(
            "another order revealed",
            as_json(honest | {"deal": deal_of(honest) | {"order": deck_text(reordered)}}),
            "hash",
        ),
        DealRecord("a salt of 120 bits", as_json(honest | {"deal": short}), "hash"),
    ]


def deal_broken(honest: dict[str, object], sealed: list[Card]) -> list[DealRecord]:
    """Games dealt from a deck that gives a hand, or the turned-up card, other than the sealed one's; and a
    seal made of an order that is not the deck (a card twice, one missing)."""
    twice = deck_text([sealed[0], *sealed[:-1]])
    not_a_deck = {"commitment": sealed_text(twice, SALT), "salt": SALT, "order": twice}
    n_dealt = 2 * HAND_SIZE
    between_hands = swapped(sealed, sealed[0].id, sealed[1].id)  # the sealed deck's first card to seat 0
    turned_up = swapped(sealed, sealed[n_dealt].id, sealed[n_dealt + 1].id)
    return [
        DealRecord(
            "a card of one hand dealt to the other",
            as_json(record_of(cheated(Settings(), 2, between_hands, 5), sealed)),
            "deal",
            0,
        ),
        DealRecord(
            "another card turned up",
            as_json(record_of(cheated(Settings(), 2, turned_up, 6), sealed)),
            "deal",
            0,
        ),
        DealRecord("a sealed order with a card twice", as_json(honest | {"deal": not_a_deck}), "deal", 0),
    ]


def talon_reversed(sealed: list[Card], kept: int = 4) -> DealRecord:
    """A talon reordered behind the players' backs once ``kept`` cards were drawn from it: the deck the game
    was played from has the rest of the talon in reverse (the turned-up card stays at the bottom)."""
    start = 2 * HAND_SIZE + 1 + kept
    deck = [*sealed[:start], *reversed(sealed[start:])]
    for seed in range(1, 100):
        ended = cheated(Settings(), 2, deck, seed)
        step = first_changed_draw(ended, sealed)
        if step is not None:
            return DealRecord(
                "the talon reordered mid-game", as_json(record_of(ended, sealed)), "draws", step
            )
    raise AssertionError("no game drew past the reordered cards")


def impossible_move(ended: Game) -> DealRecord:
    """An honest record with one attack changed to a card the attacker does not hold then."""
    log = ended.log
    game = new_game(ended.settings, ended.players, seed=ended.seed, dealer=ended.dealer)
    for number, (seat, code) in enumerate(log, start=1):
        if number > len(log) // 2 and code.startswith("a:"):
            held = {card.id for card in game.hand(seat)}
            missing = next(card for card in dealt_order(game) if card.id not in held)
            changed = [*log[: number - 1], (seat, f"a:{missing}"), *log[number:]]
            data = record_of(ended) | {"log": [[s, c] for s, c in changed]}
            return DealRecord("a move with a card not held", as_json(data), "moves", number)
        game = game.apply(seat, code)
    raise AssertionError("no attack in the second half of the game")


def another_result(honest: dict[str, object]) -> DealRecord:
    """An honest two-player record that names the other seat the durak."""
    result = honest["result"]
    assert isinstance(result, dict) and result["durak"] in (0, 1)
    return DealRecord(
        "another durak announced",
        as_json(honest | {"result": result | {"durak": 1 - result["durak"]}}),
        "result",
    )


@cache
def deal_records() -> tuple[DealRecord, ...]:
    """One record of each kind: honest ones of several rule sets (the whole deck dealt, a trump exchange and a
    Severny turn-up among them), and for each check of `core.commitment.CHECKS` records that break it."""
    dealt, ended = first_with_a_durak(Settings(), 2, 100)
    sealed = dealt_order(dealt)
    honest = record_of(ended)
    _full_dealt, full_deck = first_with_a_durak(Settings(), 6, 1)
    return (
        DealRecord("honest: two players, 36 cards", as_json(honest)),
        DealRecord("honest: six players, the whole deck dealt", as_json(record_of(full_deck))),
        DealRecord(
            "honest: a trump exchange and a Severny turn-up", as_json(record_of(exchange_and_severny()))
        ),
        *hash_broken(honest, sealed),
        *deal_broken(honest, sealed),
        never_played_swaps(10)[0],
        talon_reversed(sealed),
        impossible_move(ended),
        another_result(honest),
    )


def random_rule_records(count: int, seed: int) -> list[DealRecord]:
    """``count`` games of random rules (tests.core.invariants), each recorded honestly and, where a talon is
    left after the deal, dealt again from a deck whose talon is reordered behind the players' backs after its
    first cards: refused for its draws when the game drew a reordered card, else as honest as the first."""
    from tests.core.invariants import random_settings

    rng = random.Random(seed)
    records = []
    for _ in range(count):
        settings, players = random_settings(rng)
        if rng.random() < 0.3:
            settings = settings.model_copy(update={"severny": True})
        dealt = new_game(settings, list(NAMES[:players]), seed=rng.getrandbits(63))
        records.append(DealRecord(f"honest: {settings.to_words()}", as_json(record_of(played(dealt, rng)))))
        sealed = dealt_order(dealt)
        start = players * HAND_SIZE + 1 + rng.randrange(4)
        if start + 2 <= len(sealed):
            deck = [*sealed[:start], *reversed(sealed[start:])]
            ended = played(new_game(settings, list(NAMES[:players]), deck=deck, dealer=dealt.dealer), rng)
            reached = first_changed_draw(ended, sealed)
            refused_by = "draws" if reached is not None else None
            name = f"talon reordered: {settings.to_words()}"
            records.append(DealRecord(name, as_json(record_of(ended, sealed)), refused_by, reached))
    return records


def first_changed_draw(ended: Game, sealed: list[Card]) -> int | None:
    """The step of the first draw of ``ended`` that gave a seat other cards than the sealed deck's talon held
    there (a trump exchange puts another card at its bottom); None when every draw was the sealed deck's."""
    n_dealt = len(ended.players) * HAND_SIZE
    talon = [card.id for card in (*sealed[n_dealt + 1 :], sealed[n_dealt])]
    for _step, event in ended.events():
        if isinstance(event, TrumpExchanged):
            talon[-1] = event.put
    taken = 0
    for step, _seat, cards in drawn_by_draw(ended):
        if set(cards) != set(talon[taken : taken + len(cards)]):
            return step
        taken += len(cards)
    return None
