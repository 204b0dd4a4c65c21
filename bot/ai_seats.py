"""Moves for seats the AI plays: AI players, and people whose seat went on autopilot after timeouts."""

from __future__ import annotations

import zlib

from core import Action, Game, Kind
from core.cards import CARDS


def decision_seed(game_id: str, step: int) -> int:
    """A fixed seed per game and step, so an AI move is the same whichever process computes it."""
    return zlib.crc32(f"{game_id}:{step}".encode())


def choose_ai_action(game: Game, seat: int, level: str, game_id: str) -> Action:
    """The AI's move for ``seat``, decided from that seat's view and the public log only."""
    from core.ai import make_player

    player = make_player(level, seed=decision_seed(game_id, game.step))
    return player.choose(game.view(seat), game.log)


def safe_default(game: Game, seat: int) -> Action:
    """RULES.md's timeout move: the defender takes, the opener plays its lowest card (non-trump first), a
    thrower passes."""
    legal = [a for a in game.legal_actions(seat) if a.kind is not Kind.EXCHANGE]
    kinds = {a.kind for a in legal}
    if Kind.TAKE in kinds:
        return next(a for a in legal if a.kind is Kind.TAKE)
    if Kind.PASS in kinds:
        return next(a for a in legal if a.kind is Kind.PASS)
    trump = game.trump_index

    def lowness(action: Action) -> tuple[bool, int]:
        card = CARDS[action.card_id]
        return (card.suit_index == trump, card.rank_index)

    return min(legal, key=lowness)
