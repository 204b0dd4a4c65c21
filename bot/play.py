"""A running game: players' moves, AI seats, turn timers, and the end of the game. Pure: see `Decision`."""

from __future__ import annotations

import json
from dataclasses import replace

from bot import buttons, ratings
from bot.ai_seats import FALLBACK_LEVEL, choose_ai_action, safe_default
from bot.context import Context
from bot.decision import FINISHED_TTL, GAME_TTL, Decision, show
from bot.effects import Alert, Effect, Message, Notice, Reply, ShowHand, ShowTable
from bot.events import events_of_step, remember
from bot.fast_taps import made_as_tapped
from bot.i18n import Translator
from bot.inputs import User
from bot.outbox import table_behind
from bot.payloads import Payload
from bot.private_chat import closed_pause
from bot.render.hand import render_hand
from bot.render.refusal import refusal_text
from bot.render.summary import render_result
from bot.render.table import render_table
from bot.render.text import line, message
from bot.session import ChatSession, Event, Finished, Lobby, Playing, Seat
from core import Action, Game, Phase, Result, Settings, new_game
from core.reasons import why_illegal
from storage.models import GameOutcome, PlayerOutcome

PODIUM = (3, 2, 1)


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
    )
    return settle(ctx, None, header, game)


def seated(ctx: Context, seat: Seat) -> Seat:
    """A lobby seat dealt in: present now, and a person carries their rating into the game (read with the
    lobby; a new rating for someone without one this season)."""
    rating = None if seat.is_ai else ctx.record.ratings.get(seat.user_id, ratings.NEW)
    return seat.model_copy(update={"acted_at": ctx.now, "rating": rating})


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
    woke_up = header.seats[seat_no].autopilot
    if woke_up:
        header = with_seat(header, seat_no, autopilot=False, timeouts=0)
    if isinstance(button, buttons.OpenHand):
        hand = ShowHand(
            ctx.chat_id,
            user.id,
            hand_message(ctx, header, game, seat_no, tr),
            header.game_id,
        )
        if woke_up:
            decision = settle(ctx, session, header, game)
            return replace(decision, effects=[*decision.effects, hand])
        return show(hand)
    if payload.step > game.step:  # never drawn by us: forged
        return show(Alert(user.id, _("That button is out of date: use the newest message.")))
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
    return apply_and_settle(ctx, session, header, game, seat_no, action)


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


def current_table(ctx: Context, header: Playing, game: Game) -> ShowTable:
    """The table as the stored game draws it now, in the chat's language."""
    message = render_table(header, game.view(None), ctx.chat_id, ctx.now, ctx.tr(header.lang), ctx.opens_app)
    return ShowTable(ctx.chat_id, message, header.game_id, turn_user=turn_user(header, game))


def current_hand(ctx: Context, header: Playing, game: Game, seat_no: int) -> ShowHand:
    """A person's hand as the stored game draws it now, in their language (as `screen_changes` draws it)."""
    seat = header.seats[seat_no]
    message = hand_message(ctx, header, game, seat_no, ctx.tr(seat.lang))
    return ShowHand(ctx.chat_id, seat.user_id, message, header.game_id)


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
    extra = [Event(kind="timeout", seat=seat_no)]
    if timeouts >= 2:
        extra.append(Event(kind="autopilot", seat=seat_no))
    header = header.model_copy(update={"events": remember(header.events, extra)})
    return apply_and_settle(ctx, session, header, game, seat_no, safe_default(game, seat_no))


def clock_mark(ctx: Context, header: Playing, game: Game, seat_no: int, deadline: float) -> Decision:
    """A mark of the acting person's clock is due (`clock_marks`): at the reminder's a private reminder, at a
    refresh's their hand drawn with the time left. A timer that fires late (the bot was busy or down) handles
    every mark passed at once; one that fires early only sets the deadline again."""
    seat = header.seats[seat_no]
    due = [mark for mark in pending_marks(ctx, header, game.settings.timer) if ctx.now >= deadline - mark]
    effects: list[Effect] = []
    if due:
        header = header.model_copy(update={"clock_mark": min(due)})
        if ctx.config.reminder_before in due and not header.reminded:
            header = header.model_copy(update={"reminded": True})
            tr = ctx.tr(seat.lang)
            left = round(deadline - ctx.now)
            text = tr.n_("{n} second left for your move.", "{n} seconds left for your move.", left)
            effects.append(
                Reply(ctx.chat_id, message([line(text.format(n=left))]), private=True, user_id=seat.user_id)
            )
        if any(mark in ctx.config.clock_refresh for mark in due):
            header = header.model_copy(update={"clock_left": max(0.0, deadline - ctx.now)})
            effects.insert(0, current_hand(ctx, header, game, seat_no))
    header, next_due = next_deadline(ctx, header, game)
    return Decision(
        effects=effects,
        save=True,
        session=ChatSession(header=header, game=game),
        ttl=GAME_TTL,
        deadline=next_due,
    )


def apply_and_settle(
    ctx: Context, before: ChatSession, header: Playing, game: Game, seat: int, action: Action
) -> Decision:
    after = game.apply(seat, action)
    header = header.model_copy(
        update={"events": remember(header.events, events_of_step(game, seat, action, after))}
    )
    return settle(ctx, before, header, after)


def settle(ctx: Context, before: ChatSession | None, header: Playing, game: Game) -> Decision:
    """After a change: let inline AI seats move, finish a game that ended, set the next deadline, and say
    what changed for the table and for each person's hand.

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
    next_session = ChatSession(header=header, game=game)
    effects = screen_changes(ctx, before, header, game, drawn=next_session._hands)
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


def next_deadline(ctx: Context, header: Playing, game: Game) -> tuple[Playing, float | None]:
    """Each new step gives the seat to act a fresh turn; AI seats move after a short pause."""
    seat_no = game.to_act
    if seat_no is None:
        return header, None
    if header.seats[seat_no].played_by_ai:
        return header.model_copy(
            update={"turn_deadline": None, "turn_step": game.step}
        ), ctx.now + ctx.config.ai_delay
    timer = game.settings.timer
    if not timer:
        return header.model_copy(update={"turn_deadline": None, "turn_step": game.step}), None
    if header.turn_step != game.step or header.turn_deadline is None:
        header = header.model_copy(
            update={
                "turn_deadline": ctx.now + timer + closed_pause(ctx, header.seats[seat_no]),
                "turn_step": game.step,
                "reminded": False,
                "clock_mark": None,
                "clock_left": None,
            }
        )
    assert header.turn_deadline is not None
    pending = pending_marks(ctx, header, timer)
    return header, header.turn_deadline - (pending[0] if pending else 0.0)


def hand_message(ctx: Context, header: Playing, game: Game, seat_no: int, tr: Translator) -> Message:
    """Seat ``seat_no``'s hand as the chat draws it now: its clock, layout and app button."""
    return render_hand(
        header,
        game.view(seat_no),
        ctx.chat_id,
        tr,
        clock_drawn_at(header, game),
        ctx.hand_layout,
        ctx.opens_app,
    )


def clock_drawn_at(header: Playing, game: Game) -> float | None:
    """The moment the acting hand's time left is drawn for: the turn's start, or its last refresh; never the
    moment of drawing, so a hand drawn again (a catch-up, "My hand") is the one delivered (`bot.outbox`)."""
    if header.turn_deadline is None:
        return None
    left = header.clock_left if header.clock_left is not None else game.settings.timer
    return header.turn_deadline - left


def clock_marks(ctx: Context, timer: int) -> list[float]:
    """The seconds left at which a person's turn gets something, largest first: the hand drawn again
    (`ServiceConfig.clock_refresh`) and the reminder; only marks below the turn's length."""
    marks = {mark for mark in ctx.config.clock_refresh if mark < timer}
    if timer > ctx.config.reminder_before:
        marks.add(ctx.config.reminder_before)
    return sorted(marks, reverse=True)


def pending_marks(ctx: Context, header: Playing, timer: int) -> list[float]:
    """This turn's marks not handled yet, largest first."""
    last = header.clock_mark
    return [
        mark
        for mark in clock_marks(ctx, timer)
        if (last is None or mark < last) and not (header.reminded and mark == ctx.config.reminder_before)
    ]


def screen_changes(
    ctx: Context,
    before: ChatSession | None,
    header: Playing,
    game: Game,
    drawn: dict[tuple[int, str], Message] | None = None,
) -> list[Effect]:
    """The table always; a hand only when what that person sees has changed.

    Each new hand is put in ``drawn`` (by seat and language) when given; the old hands are taken from
    ``before``'s own such record when it has one (a session this process saved), else drawn again."""
    announce = turn_announced(ctx, before, header, game)
    effects: list[Effect] = [
        ShowTable(
            ctx.chat_id,
            render_table(header, game.view(None), ctx.chat_id, ctx.now, ctx.tr(header.lang), ctx.opens_app),
            header.game_id,
            turn_user=turn_user(header, game),
            announce=announce,
        )
    ]
    old_game = before.game if before is not None else None
    old_header = before.header if before is not None else None
    same_game = (
        isinstance(old_header, Playing) and old_header.game_id == header.game_id and old_game is not None
    )
    old_drawn = before._hands if same_game and before is not None else {}
    for seat_no, seat in enumerate(header.seats):
        if seat.is_ai:
            continue
        tr = ctx.tr(seat.lang)
        kept = old_drawn.get((seat_no, tr.lang))
        quiet = quiet_hand(game, seat_no) if kept is not None and old_game is not None else None
        if (
            kept is not None
            and quiet is not None
            and old_game is not None
            and quiet == quiet_hand(old_game, seat_no)
        ):
            if drawn is not None:  # a hand without buttons showing the same cards: nothing to draw or send
                drawn[(seat_no, tr.lang)] = kept
            continue
        new = hand_message(ctx, header, game, seat_no, tr)
        if drawn is not None:
            drawn[(seat_no, tr.lang)] = new
        if same_game:
            assert isinstance(old_header, Playing) and old_game is not None
            old = old_drawn.get((seat_no, tr.lang))
            if old is None:
                old = hand_message(ctx, old_header, old_game, seat_no, tr)
            if old == new:
                continue
        effects.append(
            ShowHand(
                ctx.chat_id,
                seat.user_id,
                new,
                header.game_id,
                new_message=not same_game,
                announce=announce and seat_no == game.to_act,
            )
        )
    return effects


def turn_user(header: Playing, game: Game) -> str:
    """The person whose turn it is; empty when nobody acts or an AI plays the seat."""
    seat_no = game.to_act
    if seat_no is None or header.seats[seat_no].played_by_ai:
        return ""
    return header.seats[seat_no].user_id


def turn_announced(ctx: Context, before: ChatSession | None, header: Playing, game: Game) -> bool:
    """The turn just came to a person who was waiting, so their platform should notify them: not the first
    screens of a game (new messages anyway), not the same seat again, not a seat the AI plays, and not
    within `ServiceConfig.announce_after` of their own last move (a defender covering card after card, an
    attacker throwing in again: they are looking at the chat already)."""
    seat_no = game.to_act
    old_header = before.header if before is not None else None
    old_game = before.game if before is not None else None
    if seat_no is None or old_game is None or not isinstance(old_header, Playing):
        return False
    if old_header.game_id != header.game_id or old_game.to_act == seat_no:
        return False
    seat = header.seats[seat_no]
    return not seat.played_by_ai and ctx.now - seat.acted_at >= ctx.config.announce_after


def quiet_hand(game: Game, seat: int) -> tuple[object, ...] | None:
    """Everything a hand message without buttons shows (its cards, out, over, trumps, and while the player
    waits who attacks whom or takes); None when the seat has buttons, whose payloads carry the game step and
    so change with every move."""
    if game.to_act == seat or game.legal_actions(seat):
        return None
    out = seat in game.out
    waiting = () if out or game.is_over else (game.phase is Phase.TAKING, game.attacker, game.defender)
    return (game.hand_masks[seat], out, game.is_over, game.trump_index, waiting)


def points_for(result: Result, scoring: str, seats: int, teams: bool = False) -> list[int]:
    """Podium: the first three out (never the durak) get 3, 2, 1; ``scoring=winner``: only the first out.
    Team games: every partner shares the team's result, so each player of the winning team gets 3."""
    points = [0] * seats
    if result.draw:
        return points
    if teams:
        return [0 if seat in result.losers else PODIUM[0] for seat in range(seats)]
    podium = PODIUM[:1] if scoring == "winner" else PODIUM
    for seat, gained in zip(result.order_out, podium, strict=False):
        if seat != result.durak:
            points[seat] = gained
    return points


def finish(ctx: Context, before: ChatSession | None, header: Playing, game: Game) -> Decision:
    """Count the game once (the store applies the outcome in the same atomic save) and offer a rematch."""
    result = game.result
    assert result is not None
    teams = game.settings.teams
    points = points_for(result, game.settings.scoring, len(header.seats), teams)
    first_out = result.order_out[0] if result.order_out else None
    losers = set(result.losers) if result.losers else {result.durak}
    changes = ratings.rated(result, header.seats, teams) or [None] * len(header.seats)
    outcome = GameOutcome(
        game_id=header.game_id,
        archive_json=archive(ctx, header, game),
        players=[
            PlayerOutcome(
                user_id=seat.user_id,
                name=seat.name,
                durak=seat_no in losers and not result.draw,
                first_out=not result.draw and (seat_no not in losers if teams else first_out == seat_no),
                draw=result.draw,
                points=points[seat_no],
                rating=change.after if (change := changes[seat_no]) is not None else None,
            )
            for seat_no, seat in enumerate(header.seats)
            if not seat.is_ai
        ],
        season=header.season,
    )
    effects = screen_changes(ctx, before, header.model_copy(update={"turn_deadline": None}), game)
    effects.append(
        Notice(
            ctx.chat_id,
            render_result(
                result,
                header.seats,
                points,
                ctx.chat_id,
                header.game_id,
                ctx.tr(header.lang),
                changes,
                replay=ctx.opens_app,
                unrated=not ratings.compares_people(header.seats, teams),
            ),
            final=True,
        )
    )
    finished = Finished(
        game_id=header.game_id,
        creator=header.creator,
        seats=[
            seat.model_copy(update={"timeouts": 0, "autopilot": False, "rating": None})
            for seat in header.seats
        ],
        words=game.settings.to_words(),
        chat_title=header.chat_title,
        lang=header.lang,
        thread_id=header.thread_id,
    )
    durak = header.seats[result.durak].user_id if result.durak is not None else None
    return Decision(
        effects=effects,
        save=True,
        session=ChatSession(header=finished),
        ttl=FINISHED_TTL,
        outcome=outcome,
        last_durak=durak,
        clear_last_durak=durak is None,
    )


def archive(ctx: Context, header: Playing, game: Game) -> str:
    """Enough to replay the game: settings, players, seed or deck, dealer, last durak and the log."""
    assert game.result is not None
    data = {
        "game_id": header.game_id,
        "chat": str(ctx.chat),
        "chat_title": header.chat_title,
        "words": game.settings.to_words(),
        "players": list(game.players),
        "seats": [{"user_id": s.user_id, "ai": s.ai} for s in header.seats],
        "seed": game.seed,
        "deck": None if game.seed is not None else [str(c) for c in game_deck(game)],
        "dealer": game.dealer,
        "last_durak": game.last_durak,
        "log": [[seat, code] for seat, code in game.log],
        "result": {
            "durak": game.result.durak,
            "draw": game.result.draw,
            "order_out": list(game.result.order_out),
        },
        "started_at": header.started_at,
        "finished_at": ctx.now,
    }
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def game_deck(game: Game) -> list[object]:
    from core.cards import CARDS

    return [CARDS[c] for c in game.deck_order]


def seat_of(header: Playing | Lobby | Finished, user_id: str) -> int | None:
    for seat_no, seat in enumerate(header.seats):
        if seat.user_id == user_id and not seat.is_ai:
            return seat_no
    return None


def with_seat(header: Playing, seat_no: int, **changes: object) -> Playing:
    seats = list(header.seats)
    seats[seat_no] = seats[seat_no].model_copy(update=changes)
    return header.model_copy(update={"seats": seats})


def hint_for(ctx: Context, session: ChatSession | None, user: User, private: bool) -> Decision:
    """`/hint` in a practice game (a private chat with the bot): the hard AI's view of each legal move."""
    from bot.render.hand import action_label

    tr = ctx.tr(user.lang)
    _ = tr._
    header = session.header if session is not None else None
    game = session.game if session is not None else None
    if not private:
        text = _("Hints are for practice games against the AI: start one in a private chat with me.")
        return show(Reply(ctx.chat_id, message([line(text)])))
    if not isinstance(header, Playing) or game is None or seat_of(header, user.id) is None:
        # asked where a group game's hand is shown, most likely: that game is not a practice game
        text = _("Hints are for practice games against the AI: start one here with {command}.").format(
            command=ctx.spelled("newgame")
        )
        return show(Reply(ctx.chat_id, message([line(text)])))
    seat_no = seat_of(header, user.id)
    assert seat_no is not None
    view = game.view(seat_no)
    ranked = ctx.ai.ranking(game, seat_no, header.game_id) if view.legal_actions else ()
    if ranked is None:
        return show(
            Reply(ctx.chat_id, message([line(_("Hints are busy right now: try again in a moment."))]))
        )
    if not ranked:
        return show(Reply(ctx.chat_id, message([line(_("Nothing to decide now: it is not your turn."))])))
    lines = [line(_("Chance of not being the durak after each move:"))]
    for action, chance in ranked:
        lines.append(line(f"{action_label(action, view, tr)} — {round(chance * 100)}%"))
    return show(Reply(ctx.chat_id, message(lines), private=True, user_id=user.id))


def trump_change_message(game: Game, tr: Translator) -> Message:
    """Severny: said loudly in the group, since every hand changes value at once."""
    from bot.render.text import SUIT_SYMBOL, bold

    card = game.view(None).severny_card
    text = tr._("Trumps change! {card} was the last card of the talon: {suit} are trumps now.")
    return message([line(bold(text.format(card=card.symbol if card else "", suit=SUIT_SYMBOL[game.trump])))])
