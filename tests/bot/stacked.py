"""A game of people started through the service, then dealt again from a stacked deck (tests/core/helpers.py),
so a test of the bot reads like the situation it is about; presses name their move and the step they were
drawn at, as the buttons of a hand drawn then would."""

from __future__ import annotations

from collections.abc import Sequence

from bot.decision import GAME_TTL
from bot.effects import Effect
from bot.inputs import User
from bot.session import ChatSession, Playing
from core import Game, new_game
from core.settings import Settings
from storage import ChatRef
from tests.bot.harness import Harness
from tests.core.helpers import stack


async def stacked_game(
    harness: Harness, players: Sequence[User], hands: Sequence[str], trump: str | None, words: str = ""
) -> Game:
    """Open a lobby, seat ``players`` (the first one opens the first bout), start, and deal ``hands``
    (``trump=None``: a deal that uses the whole deck, whose last card shows trumps)."""
    await harness.command(players[0], "newgame", words)
    for user in players[1:]:
        await harness.tap(user, "Join")
    await harness.tap(players[0], "Start")
    chat = ChatRef(harness.platform, harness.chat)
    record = await harness.store.load(chat)
    assert record.state is not None
    header = ChatSession.decode(record.state).header
    assert isinstance(header, Playing)
    opener_right = len(players) - 1  # the last durak sits right of the opener
    deck = stack(list(hands), trump=trump, deck_size=Settings.from_words(words).deck)
    game = new_game(
        Settings.from_words(words), [s.name for s in header.seats], deck=deck, last_durak=opener_right
    )
    saved = await harness.store.save(
        chat, record.version, ChatSession(header=header, game=game).encode(), ttl=GAME_TTL, running=True
    )
    assert saved is not None
    return game


async def game_now(harness: Harness) -> Game:
    record = await harness.store.load(ChatRef(harness.platform, harness.chat))
    assert record.state is not None
    game = ChatSession.decode(record.state).game
    assert game is not None
    return game


async def press_move(harness: Harness, user: User, code: str, drawn_at: int | None = None) -> list[Effect]:
    """``user`` presses the button of ``code`` on a hand drawn at step ``drawn_at`` (default: now); what the
    service answered."""
    record = await harness.store.load(ChatRef(harness.platform, harness.chat))
    assert record.state is not None
    header = ChatSession.decode(record.state).header
    assert isinstance(header, Playing)
    step = (await game_now(harness)).step if drawn_at is None else drawn_at
    return await harness.press(user, f"{harness.chat}|{header.game_id}|{step}|{code}")  # forged codes too


async def first_moves_to_the_end(harness: Harness, players: Sequence[User]) -> None:
    """Through the chat's buttons: whoever acts takes their first legal move, until the game is over."""
    while True:
        game = await game_now(harness)
        seat = game.to_act
        assert seat is not None
        action = game.legal_actions(seat)[0]
        await press_move(harness, players[seat], action.code)
        if game.apply(seat, action).is_over:
            return
