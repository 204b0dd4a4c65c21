"""Moves for seats the AI plays: AI players, and people whose seat went on autopilot after timeouts."""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field

from core import Action, Game, Kind
from core.cards import CARDS

FALLBACK_LEVEL = (
    "normal"  # what a seat plays when its own level's answer is not ready (see bot/runtime/ai_pool.py)
)
AiKey = tuple[str, int, int]  # (game id, step, seat): one decision
Ranking = tuple[tuple[Action, float], ...]  # `/hint`: each legal action and its chance, best first


def decision_seed(game_id: str, step: int) -> int:
    """A fixed seed per game and step, so an AI move is the same whichever process computes it."""
    return zlib.crc32(f"{game_id}:{step}".encode())


def choose_ai_action(game: Game, seat: int, level: str, game_id: str) -> Action:
    """The AI's move for ``seat``, decided from that seat's view and the public log only."""
    from core.ai import make_player

    player = make_player(level, seed=decision_seed(game_id, game.step))
    return player.choose(game.view(seat), game.log)


def rank_actions(game: Game, seat: int, game_id: str) -> Ranking:
    """`/hint` for ``seat``: the hard AI's chance of not being the durak after each legal action."""
    from core.ai import hint

    return tuple(hint(game.view(seat), game.log, seed=decision_seed(game_id, game.step)))


@dataclass(frozen=True)
class AiAnswers:
    """AI results worked out before a decision, off the event loop (`bot.runtime.ai_pool`), by game, step and
    seat.

    Decisions stay pure and synchronous: the service asks for these first and hands them in through the
    `Context`. ``inline`` says whether a decision may work out a missing answer itself: yes in the terminal
    and in tests (one user, no pool), never in `durak-bot run`, where an AI move on the event loop would
    stall every chat."""

    moves: Mapping[AiKey, Action] = field(default_factory=dict)
    rankings: Mapping[AiKey, Ranking] = field(default_factory=dict)
    inline: bool = True

    def move(self, game: Game, seat: int, level: str, game_id: str) -> Action | None:
        """The move worked out for this very step (if it is still legal), else one decided here when
        ``inline``; None when it must wait for the pool."""
        known = self.moves.get((game_id, game.step, seat))
        if known is not None and known in game.legal_actions(seat):
            return known
        return choose_ai_action(game, seat, level, game_id) if self.inline else None

    def ranking(self, game: Game, seat: int, game_id: str) -> Ranking | None:
        """`/hint`'s ranking for this step; None when the pool had no answer in time (and not ``inline``)."""
        known = self.rankings.get((game_id, game.step, seat))
        if known is not None or not self.inline:
            return known
        return rank_actions(game, seat, game_id)


INLINE = AiAnswers()  # nothing worked out ahead: decide here (the terminal, tests)
OFF_LOOP = AiAnswers(inline=False)  # `durak-bot run` with nothing worked out: AI seats wait for the pool


def safe_default(game: Game, seat: int) -> Action:
    """The timeout move (rules.md §9.3): the defender takes, the opener plays its lowest card (non-trump
    first), a thrower passes."""
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
