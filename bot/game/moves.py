"""A running game's moves: the deal, a player's press, an AI seat's or a timed-out turn's move, and what
follows each (inline AI moves, the end of the game, the next deadline, the new screens). Pure: see
`Decision`."""

from __future__ import annotations

from dataclasses import replace

from bot import buttons
from bot.ai_seats import FALLBACK_LEVEL, choose_ai_action, safe_default
from bot.context import Context
from bot.decision import GAME_TTL, Decision, show
from bot.effects import Alert, Message, Notice, ShowHand
from bot.game.clock import clock_mark, next_deadline, retract_reminder
from bot.game.fast_taps import made_as_tapped
from bot.game.finish import finish
from bot.game.last_actions import events_of_step, remember
from bot.game.screens import (
    current_hand,
    current_table,
    hand_final,
    hand_message,
    screen_changes,
    trump_change_message,
)
from bot.game.seats import seat_of, seated, with_seat
from bot.inputs import User
from bot.outbox import table_behind
from bot.payloads import Payload
from bot.render.hand import played_note
from bot.render.refusal import refusal_text
from bot.session import ChatSession, Lobby, Playing, TableEvent
from core import Action, Game, Settings, new_game
from core.commitment import commitment, dealt_order
from core.reasons import why_illegal


def start_game(ctx: Context, lobby: Lobby) -> Decision:
    """Deal from the lobby: seats in joining order; the chat's last durak (if seated) deals and sets the
    opener by the game's opener rule."""
    settings = Settings.from_words(lobby.words)
    ids = [seat.user_id for seat in lobby.seats]
    last_durak = ids.index(ctx.record.last_durak) if ctx.record.last_durak in ids else None
    game = new_game(
        settings,
        [seat.name for seat in lobby.seats],
        seed=ctx.new_seed(),
        dealer=last_durak,
        last_durak=last_durak,
    )
    salt = ctx.new_salt()  # None: this game's deal is not sealed (`bot.self_play`)
    header = Playing(
        game_id=ctx.new_id(),
        creator=lobby.creator,
        seats=[seated(ctx, seat) for seat in lobby.seats],
        chat_title=lobby.chat_title,
        lang=lobby.lang,
        thread_id=lobby.thread_id,
        started_at=ctx.now,
        season=ctx.record.season,
        lobby_id=lobby.lobby_id,
        deal_commitment=commitment(dealt_order(game), salt) if salt else "",
        deal_salt=salt or "",
    )
    return settle(ctx, None, header, game)


def on_game_press(ctx: Context, session: ChatSession, user: User, payload: Payload) -> Decision:
    header, game = session.header, session.game
    assert isinstance(header, Playing) and game is not None
    tr = ctx.tr(user.lang)
    _ = tr._
    button = payload.button
    if payload.game_id != header.game_id:
        if isinstance(button, buttons.LOBBY_BUTTONS):  # the lobby this game started from
            return show(Alert(user.id, _("The game has already started."), show_alert=True))
        return show(Alert(user.id, _("This button belongs to a game that is over."), show_alert=True))
    seat_no = seat_of(header, user.id)
    if seat_no is None:
        return show(Alert(user.id, _("You are not playing in this game."), show_alert=True))
    if payload.step > game.step or (payload.history and payload.history != game.history(payload.step)):
        return course_lost(ctx, header, game, user)  # a move, or "My hand", drawn from lost writes
    # an owner takes their seat back from the AI by tapping, but only while it is in play: a seat the AI
    # played until it went out stays the AI's, whatever is tapped later (rules.md §9.6)
    woke_up = header.seats[seat_no].autopilot and not game.is_out(seat_no)
    if woke_up:
        header = with_seat(header, seat_no, autopilot=False, timeouts=0)
    if isinstance(button, buttons.OpenHand):
        hand = ShowHand(
            ctx.chat_id,
            user.id,
            hand_message(ctx, header, game, seat_no, tr),
            header.game_id,
            final=hand_final(game, seat_no),
        )
        if woke_up:
            decision = settle(ctx, session, header, game)
            return replace(decision, effects=[*decision.effects, hand])
        return show(hand)
    action = button.action if isinstance(button, buttons.Move) else None
    stale = payload.step < game.step
    if stale and (action is None or not made_as_tapped(game, payload.step, seat_no, action)):
        assert isinstance(session.header, Playing)  # nothing is saved: drawn as stored, autopilot and all
        return stale_press(ctx, session.header, game, seat_no, user)
    if action is None:
        return show(Alert(user.id, _("That move is not possible now."), show_alert=True))
    refusal = why_illegal(game, seat_no, action)
    if refusal is not None:
        names = [seat.name for seat in header.seats]
        return show(Alert(user.id, refusal_text(refusal, names, tr), show_alert=True))
    header = with_seat(header, seat_no, timeouts=0, autopilot=False, acted_at=ctx.now)
    decision = apply_and_settle(ctx, session, header, game, seat_no, action)
    if not ctx.hand_layout.answer_apart or any(
        isinstance(effect, Alert) and effect.user_id == user.id for effect in decision.effects
    ):
        return decision
    # the press's own answer (Telegram's toast) says what was played, beside the hand drawn anew
    note = Alert(user.id, played_note(action, game.view(seat_no), tr))
    return replace(decision, effects=[note, *decision.effects])


def course_lost(ctx: Context, header: Playing, game: Game, user: User) -> Decision:
    """A button of a step the game has not reached, or of a course it did not take: drawn from writes the
    store has lost since (a host crash cut its append-only file, a failover to a replica behind), or forged.
    Nothing is applied; the chat's table and every person's hand are drawn again as stored (each may show the
    lost moves, and whose turn it is may differ), and the presser is told why (docs/reliability.md, "When
    Redis loses data")."""
    _ = ctx.tr(user.lang)._
    text = _("The game went back to its last saved move after a server fault: here it is as it was saved.")
    hands = [current_hand(ctx, header, game, seat) for seat, s in enumerate(header.seats) if not s.is_ai]
    return show(Alert(user.id, text, show_alert=True), current_table(ctx, header, game), *hands)


def stale_press(ctx: Context, header: Playing, game: Game, seat_no: int, user: User) -> Decision:
    """A button drawn before the game's current step. Its screen may be out of date too (a process that
    died with its edits still queued never sent the newer one), so the presser's own hand is shown again as
    stored, and the table when the one last delivered is older than the stored game (`bot.outbox`). Only
    their own hand, whoever's old button it was."""
    _ = ctx.tr(user.lang)._
    return show(
        Alert(user.id, _("That button is out of date: use the newest message."), show_alert=False),
        current_hand(ctx, header, game, seat_no),
        *([current_table(ctx, header, game)] if table_behind(ctx.record) else []),
    )


def on_timer(ctx: Context, session: ChatSession) -> Decision:
    """A due deadline: an AI seat moves, a mark of a person's clock comes (their hand shows the time left
    again, or the reminder), or their time is up."""
    header, game = session.header, session.game
    assert isinstance(header, Playing) and game is not None
    seat_no = game.to_act
    if seat_no is None:
        return show()
    seat = header.seats[seat_no]
    if seat.played_by_ai:
        level = seat.ai or FALLBACK_LEVEL
        action = ctx.ai.move(game, seat_no, level, header.game_id)
        if action is None:  # the service always asks the pool first; never stall the seat if it did not
            action = choose_ai_action(game, seat_no, FALLBACK_LEVEL, header.game_id)
        return apply_and_settle(ctx, session, header, game, seat_no, action)
    deadline = header.turn_deadline
    if deadline is not None and ctx.now < deadline - 1:
        return clock_mark(ctx, header, game, seat_no, deadline)
    timeouts = seat.timeouts + 1
    header = with_seat(header, seat_no, timeouts=timeouts, autopilot=timeouts >= 2)
    extra = [TableEvent(kind="timeout", seat=seat_no)]
    if timeouts >= 2:
        extra.append(TableEvent(kind="autopilot", seat=seat_no))
    header = header.model_copy(update={"events": remember(header.events, extra)})
    return apply_and_settle(ctx, session, header, game, seat_no, safe_default(game, seat_no))


def apply_and_settle(
    ctx: Context,
    before: ChatSession,
    header: Playing,
    game: Game,
    seat: int,
    action: Action,
) -> Decision:
    """``seat`` takes ``action`` (their press, the clock, an AI or a surrender)."""
    after = game.apply(seat, action)
    header = header.model_copy(
        update={"events": remember(header.events, events_of_step(game, seat, action, after))}
    )
    return settle(ctx, before, header, after)


def settle(ctx: Context, before: ChatSession | None, header: Playing, game: Game) -> Decision:
    """After a change: let inline AI seats move, finish a game that ended, set the next deadline, and say
    what changed for the table and for each person's hand (`screen_changes`).

    Inline AI moves (``ai_delay`` 0) are decided here only when ``ctx.ai.inline`` (the terminal, tests); with
    a worker pool the chain stops at the first move not worked out ahead, and that seat's deadline (now)
    lets the timer loop ask the pool for it."""
    if ctx.config.ai_delay <= 0:
        for _ in range(ctx.config.max_inline_ai_moves):
            seat_no = game.to_act
            if seat_no is None or not header.seats[seat_no].played_by_ai:
                break
            seat = header.seats[seat_no]
            action = ctx.ai.move(game, seat_no, seat.ai or FALLBACK_LEVEL, header.game_id)
            if action is None:
                break
            after = game.apply(seat_no, action)
            header = header.model_copy(
                update={"events": remember(header.events, events_of_step(game, seat_no, action, after))}
            )
            game = after
    if game.is_over:
        return finish(ctx, before, header, game)
    header, deadline = next_deadline(ctx, header, game)
    drawn: dict[tuple[int, str], Message] = {}
    effects = screen_changes(ctx, before, header, game, drawn=drawn)
    old_header = before.header if before is not None and isinstance(before.header, Playing) else None
    effects += retract_reminder(ctx, old_header, before.game if before is not None else None, header, game)
    next_session = ChatSession(header=header, game=game)
    next_session._hands.update(drawn)
    old_game = before.game if before is not None else None
    if old_game is not None and game.severny_card >= 0 and old_game.severny_card < 0:
        effects.append(Notice(ctx.chat_id, trump_change_message(game, ctx.tr(header.lang))))
    return Decision(
        effects=effects,
        save=True,
        session=next_session,
        ttl=GAME_TTL,
        deadline=deadline,
    )
