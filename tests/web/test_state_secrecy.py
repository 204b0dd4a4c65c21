"""A page's state never holds a card only another player may see: checked at every step of many random
games, for every seat and for a spectator, from what the read side lets each of them see (`bot.queries.Seen`)
to the JSON exactly as it is sent (card codes and card symbols)."""

from __future__ import annotations

import json
import re

from adapters.web.state import viewer_state
from bot.game.archive import FinalGame
from bot.queries import Snapshot, seen_in
from bot.session import ChatSession, Finished
from core import Card, Game
from core.cards import CARDS
from tests.bot.test_secrecy import CARD_PATTERN, random_positions

CODE_PATTERN = re.compile(r"(?<![0-9A-Za-z])([2-9TJQKA][SHDC])(?![0-9A-Za-z])")


def cards_in(state: dict[str, object]) -> set[Card]:
    """Every card the sent JSON names, as a code ("9S") or as people read it ("9♠")."""
    text = json.dumps(state, ensure_ascii=False)
    codes = {Card.parse(m.group(1)) for m in CODE_PATTERN.finditer(text)}
    return codes | {Card.parse(m.group(0)) for m in CARD_PATTERN.finditer(text)}


def check_states(session: ChatSession, game: Game, public: set[Card], final: FinalGame | None = None) -> None:
    snapshot = Snapshot(7, session, final=final)
    for seat in [None, *range(len(game.players))]:
        user_id = session.header.seats[seat].user_id if seat is not None else "a spectator"
        state = viewer_state("-1", seen_in(snapshot, "-1", user_id), "en", 0.0)
        own = set(game.hand(seat)) if seat is not None else set()
        leaked = cards_in(state) - public - own
        assert not leaked, f"the state of seat {seat} holds {leaked} at step {game.step}"
        assert state["you"] == seat


def play_and_check(games: int, seed: int) -> None:
    for game, header, public in random_positions(games, seed):
        if game.is_over:
            words = game.settings.to_words()
            over = Finished(game_id="g1", creator="0", seats=header.seats, words=words)
            check_states(ChatSession(header=over), game, public, FinalGame(game, header.events))
        else:
            check_states(ChatSession(header=header, game=game), game, public)


def test_a_pages_state_never_holds_another_seats_cards() -> None:
    play_and_check(games=30, seed=2026)


def test_the_code_pattern_recognises_every_card_code() -> None:
    assert {m.group(1) for m in CODE_PATTERN.finditer(" ".join(str(c) for c in CARDS))} == {
        str(c) for c in CARDS
    }
