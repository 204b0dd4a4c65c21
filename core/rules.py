"""Transitions: one handler per action kind, then `_advance` settles whose turn it is.

Every handler works on a fresh clone, so the game passed in is never changed. `_advance` is the only place
that ends bouts, refills hands, puts players out, decides the result and starts the next bout, which keeps
rules.md's sequence (§6, §7.4: bout, refill, then the result) in one readable function. What follows from
an action is written into the log after it as events (`core.events`), in the order it happens.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import ParamSpec

from core.actions import Action, Kind
from core.cards import CARDS, TABLE_RANKS
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
from core.state import HAND_SIZE, MAX_ATTACKS, Game, Phase, clone_game

_P = ParamSpec("_P")


def apply_action(game: Game, seat: int, action: Action) -> Game:
    """Apply an action already checked legal by ``Game.apply``."""
    new = clone_game(game)
    if game.recording:
        new._log = (game._log, seat, action)
    new.step = game.step + 1
    _HANDLERS[action.kind](new, seat, action)
    # An exchange uses no turn, but it changes a hand: while attackers throw in, priority is settled again so
    # that a thrower who swapped away their only card of a table rank is skipped (rules.md §8.4).
    if new.phase is not Phase.OVER and (action.kind is not Kind.EXCHANGE or new.phase in _THROWING):
        _advance(new)
    return new


_THROWING = (Phase.THROW_IN, Phase.TAKING)


def _emit(game: Game, kind: Callable[_P, Event], *args: _P.args, **kwargs: _P.kwargs) -> None:
    """Record what just happened, after the action that caused it (-1: no seat chose it). A game that keeps
    no history (the AI's sampled worlds) does not even make the event."""
    if game.recording:
        game._log = (game._log, -1, kind(*args, **kwargs))


# ---- handlers --------------------------------------------------------------------------------------


def _play_attack(game: Game, seat: int, action: Action) -> None:
    """Opening card or throw-in: a new card clears all passes and sends priority to the main attacker."""
    card = action.card_id
    _remove_from_hand(game, seat, card)
    game.attacks = (*game.attacks, card)
    game.covers = (*game.covers, -1)
    game.table_ranks |= TABLE_RANKS[card]
    game.passed = 0
    if game.phase is not Phase.TAKING:
        game.phase = Phase.DEFEND


def _play_cover(game: Game, seat: int, action: Action) -> None:
    card = action.card_id
    _remove_from_hand(game, seat, card)
    covers = list(game.covers)
    covers[action.slot] = card
    game.covers = tuple(covers)
    game.table_ranks |= TABLE_RANKS[card]


def _take(game: Game, seat: int, action: Action) -> None:
    """The defender gives up; attackers may still throw in, priority from the main attacker again."""
    game.phase = Phase.TAKING
    game.passed = 0


def _pass(game: Game, seat: int, action: Action) -> None:
    game.passed |= 1 << seat


def _transfer(game: Game, seat: int, action: Action) -> None:
    """The defender adds a card of the rank; the next active player defends and the transferrer leads."""
    target = game.transfer_target()
    card = action.card_id
    _remove_from_hand(game, seat, card)
    game.attacks = (*game.attacks, card)
    game.covers = (*game.covers, -1)
    game.attacker = seat
    game.defender = target
    game.defender_limit = game.hand_masks[target].bit_count()
    game.passed = 0


def _exchange(game: Game, seat: int, action: Action) -> None:
    """Swap the deck's lowest trump for the turned-up trump; the lowest trump now lies under the talon."""
    lowest = game.lowest_trump()
    turned_up = game.talon[-1]
    _set_hand(game, seat, game.hand_masks[seat] & ~(1 << lowest) | (1 << turned_up))
    game.talon = (*game.talon[:-1], lowest)
    game.trump_card_id = lowest
    _emit(game, TrumpExchanged, seat, turned_up, lowest)


def _surrender(game: Game, seat: int, action: Action) -> None:
    """The leaver is the durak (in a team game, with their whole team). Those already out keep their
    places; the others still holding cards follow them, fewest cards first (rules.md §7.7)."""
    losers = tuple(s for s in range(len(game.players)) if game.team_of(s) == game.team_of(seat))
    order_out = (*game.out, *placed_by_cards(game, set(losers)))
    _finish(game, Result(durak=seat, draw=False, order_out=order_out, reason="surrender", losers=losers))


def placed_by_cards(game: Game, losers: set[int]) -> list[int]:
    """The seats still holding cards, losers aside: fewest cards first, a tie in seat order from the
    attacker round the table."""
    n = len(game.players)
    in_order = [(game.attacker + step) % n for step in range(n)]
    still_in = [s for s in in_order if s not in game.out and s not in losers]
    return sorted(still_in, key=lambda s: game.hand_masks[s].bit_count())  # stable: ties keep seat order


_HANDLERS: dict[Kind, Callable[[Game, int, Action], None]] = {
    Kind.ATTACK: _play_attack,
    Kind.COVER: _play_cover,
    Kind.TAKE: _take,
    Kind.PASS: _pass,
    Kind.TRANSFER: _transfer,
    Kind.EXCHANGE: _exchange,
    Kind.SURRENDER: _surrender,
}


# ---- hands and going out ---------------------------------------------------------------------------


def _set_hand(game: Game, seat: int, mask: int) -> None:
    hands = list(game.hand_masks)
    hands[seat] = mask
    game.hand_masks = tuple(hands)


def _remove_from_hand(game: Game, seat: int, card: int) -> None:
    """A card leaves a hand; an empty hand with an empty talon is out at once (rules.md §7.1)."""
    mask = game.hand_masks[seat] & ~(1 << card)
    _set_hand(game, seat, mask)
    if not mask:
        if game.talon:
            game.emptied = (*game.emptied, seat)
        else:
            game.out = (*game.out, seat)
            _emit(game, WentOut, seat, len(game.out))


# ---- whose turn, and the end of a bout -------------------------------------------------------------


def _advance(game: Game) -> None:
    """Decide who acts next, ending the bout when nobody can or will add a card."""
    if game.phase is Phase.TAKING:
        thrower = game.next_thrower()
        if thrower is None:
            _end_bout(game, taken=True)
        else:
            game.to_act = thrower
        return
    if -1 in game.covers:
        game.phase = Phase.DEFEND
        game.to_act = game.defender
        return
    # everything is covered
    if not game.hand_masks[game.defender] or len(game.attacks) >= game.attack_limit:
        _end_bout(game, taken=False)
        return
    thrower = game.next_thrower()
    if thrower is None:
        _end_bout(game, taken=False)
    else:
        game.phase = Phase.THROW_IN
        game.to_act = thrower


def _end_bout(game: Game, taken: bool) -> None:
    """Pick up or discard, refill, put players out, check the result, then start the next bout."""
    table = 0
    for card in (*game.attacks, *game.covers):
        if card >= 0:
            table |= 1 << card
    defender = game.defender
    _emit(game, BoutEnded, defender, taken, table)
    if taken:
        _set_hand(game, defender, game.hand_masks[defender] | table)
    else:
        game.discard |= table
        game.positions = frozenset()
    game.attacks = ()
    game.covers = ()
    game.table_ranks = 0
    game.passed = 0
    _refill(game)
    _put_out_empty_hands(game)

    if not game.talon and _decide_result(game):
        return
    attacker = game.next_active(defender) if taken or defender in game.out else defender
    start_bout(game, attacker, first=False)


def _decide_result(game: Game) -> bool:
    """With the talon empty: one player (or one team) left holding cards loses; nobody left is a draw."""
    n = len(game.players)
    active = [s for s in range(n) if s not in game.out]
    sides = {game.team_of(s) for s in active}
    if len(sides) > 1:
        return False
    if not active:
        _finish(game, Result(durak=None, draw=True, order_out=game.out, reason="everyone_out"))
        return True
    losers = tuple(s for s in range(n) if game.team_of(s) == game.team_of(active[0]))
    reason = "last_team" if game.settings.teams else "last_holder"
    # rules.md §7.5: of several partners still holding cards, the one with the most is named (the lowest seat
    # on a tie: `max` keeps the first of equals); that seat decides the next game's opener
    durak = max(active, key=lambda s: game.hand_masks[s].bit_count())
    _finish(game, Result(durak=durak, draw=False, order_out=game.out, reason=reason, losers=losers))
    return True


def _refill(game: Game) -> None:
    """The opener draws first, then the others clockwise, the final defender last, each up to six."""
    if not game.talon:
        return
    n = len(game.players)
    order = [(game.opener + step) % n for step in range(n)]
    order = [s for s in order if s != game.defender and s not in game.out] + [game.defender]
    talon = game.talon
    # Severny: the last face-down card (the one above the turned-up trump) sets trumps when it is drawn
    last_hidden = talon[-2] if game.settings.severny and game.severny_card < 0 and len(talon) >= 2 else -1
    hands = list(game.hand_masks)
    for seat in order:
        missing = HAND_SIZE - hands[seat].bit_count()
        if missing <= 0 or not talon:
            continue
        drawn, talon = talon[:missing], talon[missing:]
        mask = 0
        for card in drawn:
            mask |= 1 << card
        hands[seat] |= mask
        _emit(game, Drew, seat, len(drawn), mask)
        if last_hidden in drawn:
            game.severny_card = last_hidden
            game.trump_index = last_hidden & 3
            game.trump_card_id = last_hidden
            _emit(game, TrumpsChanged, seat, last_hidden)
        if not talon:
            _emit(game, TurnedUpCardDrawn, seat, drawn[-1])
    game.hand_masks = tuple(hands)
    game.talon = talon


def _put_out_empty_hands(game: Game) -> None:
    """With the talon empty, players whose hand emptied this bout are out, in the order they emptied."""
    if not game.talon:
        for seat in game.emptied:
            if not game.hand_masks[seat] and seat not in game.out:
                game.out = (*game.out, seat)
                _emit(game, WentOut, seat, len(game.out))
    game.emptied = ()


def start_bout(game: Game, attacker: int, first: bool) -> None:
    """Open a bout: the attacker leads against the next active player; a repeated position is a draw."""
    game.attacker = attacker
    game.opener = attacker
    game.defender = game.next_opponent(attacker)
    game.defender_limit = game.hand_masks[game.defender].bit_count()
    game.bout_number = 1 if first else game.bout_number + 1
    game.bout_cap = 5 if game.settings.first5 and game.bout_number == 1 else MAX_ATTACKS
    game.phase = Phase.ATTACK
    game.to_act = attacker
    position = position_digest(game.hand_masks, game.talon, attacker, game.defender, game.trump_index)
    if position in game.positions:
        _finish(game, Result(durak=None, draw=True, order_out=game.out, reason="repetition"))
        return
    game.positions = game.positions | {position}
    _emit(game, BoutStarted, attacker, game.defender, game.bout_cap)


def _finish(game: Game, result: Result) -> None:
    game.result = result
    game.phase = Phase.OVER
    game.to_act = None
    _emit(game, GameOver, result)


def describe(game: Game, seat: int, action: Action) -> str:
    """A short English line for logs and debugging (the bot renders its own, translated)."""
    name = game.players[seat]
    card = CARDS[action.card_id] if action.card_id >= 0 else None
    return {
        Kind.ATTACK: f"{name} plays {card}",
        Kind.COVER: f"{name} covers with {card}",
        Kind.TAKE: f"{name} takes",
        Kind.PASS: f"{name} passes",
        Kind.TRANSFER: f"{name} transfers with {card}",
        Kind.EXCHANGE: f"{name} exchanges the trump card",
        Kind.SURRENDER: f"{name} surrenders",
    }[action.kind]


def position_digest(
    hands: tuple[int, ...], talon: tuple[int, ...], attacker: int, defender: int, trump: int
) -> str:
    """The repetition position of rules.md §7.6 (every hand as a set, the talon, attacker, defender, trumps)
    as a 64-bit digest: a few bytes per bout in the stored state instead of every hand again."""
    text = f"{hands}|{talon}|{attacker}|{defender}|{trump}".encode()
    return hashlib.blake2b(text, digest_size=8).hexdigest()
