"""Whether a seated person can receive private messages (their hand), as their platform reports it.

Telegram cannot write first to someone who never opened the bot's private chat; the adapter learns it from a
refused message and learns the opposite when they open that chat. The fact is kept on the seat, so the
lobby marks the seat and Start waits for it, and a running game holds that person's clock, for at most
`bot.game.clock.CLOSED_PAUSE` seconds, rather than time them out before they saw a card. The request to open
the chat (`OPEN_PRIVATE`: the lobby's `open_me`, or the adapter's own after a refused hand) is retracted once
it no longer applies: here when the chat opens; when the seat is gone or the game over, with
`bot.game.seats.retract_open_private`. Pure: see `Decision`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from bot.buttons import Join
from bot.context import Context
from bot.decision import GAME_TTL, Decision, show
from bot.effects import OPEN_PRIVATE, Button, Effect, Reply, Retract
from bot.game.clock import CLOSED_PAUSE, next_deadline
from bot.game.lobby import lobby_saved
from bot.payloads import Payload
from bot.render.text import line, message
from bot.session import ChatSession, Lobby, Playing, Seat


def private_chat(ctx: Context, session: ChatSession | None, user_id: str, is_open: bool) -> Decision:
    """Record that ``user_id`` can (or cannot) receive private messages; nothing changes for a person
    not seated here, or whose seat already says so."""
    header = session.header if session is not None else None
    if not isinstance(header, Lobby | Playing):
        return show()
    seat_no = next((n for n, s in enumerate(header.seats) if s.user_id == user_id and not s.is_ai), None)
    if seat_no is None or (header.seats[seat_no].private_closed_at is None) == is_open:
        return show()
    seats = list(header.seats)
    seats[seat_no] = seats[seat_no].model_copy(update={"private_closed_at": None if is_open else ctx.now})
    retracted: list[Effect] = [Retract(ctx.chat_id, OPEN_PRIVATE, user_id)] if is_open else []
    if isinstance(header, Lobby):
        lobby = header.model_copy(update={"seats": seats})
        return lobby_saved(ctx, lobby, *(retracted or [open_me(ctx, lobby, seats[seat_no])]))
    assert session is not None and session.game is not None
    game = session.game
    playing = header.model_copy(update={"seats": seats})
    if game.to_act == seat_no and playing.turn_deadline is not None:
        timer = game.settings.timer
        moved = (
            playing.turn_deadline + CLOSED_PAUSE
            if not is_open
            else min(playing.turn_deadline, ctx.now + timer)
        )
        playing = playing.model_copy(update={"turn_deadline": moved})
    playing, deadline = next_deadline(ctx, playing, game)
    return Decision(
        effects=list(retracted),
        save=True,
        session=ChatSession(header=playing, game=game),
        ttl=GAME_TTL,
        deadline=deadline,
    )


def opened_first(
    then: Callable[[Context, ChatSession | None], Decision], user_id: str
) -> Callable[[Context, ChatSession | None], Decision]:
    """A press that came through the person's private chat: that chat is open. It is recorded in the same
    save as the press (no extra round trip), and the press is decided on the result."""

    def decide(ctx: Context, session: ChatSession | None) -> Decision:
        opened = private_chat(ctx, session, user_id, is_open=True)
        if not opened.save:
            return then(ctx, session)
        after = then(ctx, opened.session)
        both = [*opened.effects, *after.effects]
        return replace(after if after.save else opened, effects=both)

    return decide


def open_me(ctx: Context, lobby: Lobby, seat: Seat) -> Reply:
    """In the group: the person is asked to open the private chat, with a button that opens it (and joins,
    which they already did)."""
    _ = ctx.tr(seat.lang)._
    text = _("{name}, I cannot send you your cards until you open a private chat with me: tap the button.")
    button = Button(
        _("Open the private chat"),
        Payload(ctx.chat_id, lobby.lobby_id, 0, Join()).encode(),
        opens_private=True,
    )
    return Reply(
        ctx.chat_id,
        message([line(text.format(name=seat.name))], [[button]]),
        user_id=seat.user_id,
        tag=OPEN_PRIVATE,
    )
