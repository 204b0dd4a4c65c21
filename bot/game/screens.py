"""What each audience is shown after a change: the table for the chat, each person's hand, and whether the
turn is announced. The stored game draws them alike whoever asks (a move, the clock, a stale press, the
web app, a recovery), so they are drawn in one place, apart from the decisions that change the game."""

from __future__ import annotations

from bot.context import Context
from bot.effects import Effect, Message, ShowHand, ShowTable
from bot.i18n import Translator
from bot.render.hand import render_hand
from bot.render.table import render_table
from bot.render.text import SUIT_SYMBOL, bold, line, message
from bot.session import ChatSession, Playing
from core import Game


def current_table(ctx: Context, header: Playing, game: Game) -> ShowTable:
    """The table as the stored game draws it now, in the chat's language."""
    message = render_table(header, game.view(None), ctx.chat_id, ctx.tr(header.lang), ctx.opens_app)
    in_play = (
        not game.is_over
    )  # drawn again (a stale press, a recovery): at the spectators' pace as any other
    return ShowTable(ctx.chat_id, message, header.game_id, turn_user=turn_user(header, game), in_play=in_play)


def current_hand(ctx: Context, header: Playing, game: Game, seat_no: int) -> ShowHand:
    """A person's hand as the stored game draws it now, in their language (as `screen_changes` draws it)."""
    seat = header.seats[seat_no]
    message = hand_message(ctx, header, game, seat_no, ctx.tr(seat.lang))
    return ShowHand(ctx.chat_id, seat.user_id, message, header.game_id, final=hand_final(game, seat_no))


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


def screen_changes(
    ctx: Context,
    before: ChatSession | None,
    header: Playing,
    game: Game,
    drawn: dict[tuple[int, str], Message] | None = None,
) -> list[Effect]:
    """The table always; a hand only when what that person can do or holds has changed: the mover's own hand
    always does (the card gone, the buttons left), so their tap shows at once.

    Each new hand is put in ``drawn`` (by seat and language) when given; the old hands are taken from
    ``before``'s own such record when it has one (a session this process saved), else drawn again."""
    announce = turn_announced(ctx, before, header, game)
    old_game = before.game if before is not None else None
    old_header = before.header if before is not None else None
    same_game = (
        isinstance(old_header, Playing) and old_header.game_id == header.game_id and old_game is not None
    )
    effects: list[Effect] = [
        ShowTable(
            ctx.chat_id,
            render_table(header, game.view(None), ctx.chat_id, ctx.tr(header.lang), ctx.opens_app),
            header.game_id,
            turn_user=turn_user(header, game),
            announce=announce,
            in_play=not game.is_over and same_game,  # the deal turns the lobby into the table at once
        )
    ]
    old_drawn = before._hands if same_game and before is not None else {}
    for seat_no, seat in enumerate(header.seats):
        if seat.is_ai:
            continue
        tr = ctx.tr(seat.lang)
        kept = old_drawn.get((seat_no, tr.lang))
        quiet = quiet_hand(old_game, seat_no) if same_game and old_game is not None else None
        if quiet is not None and quiet == quiet_hand(game, seat_no):
            if drawn is not None:  # a hand without buttons showing the same cards: nothing to draw or send
                assert isinstance(old_header, Playing) and old_game is not None
                drawn[(seat_no, tr.lang)] = kept or hand_message(ctx, old_header, old_game, seat_no, tr)
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
                in_play=not game.is_over,
                final=hand_final(game, seat_no),
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


def hand_final(game: Game, seat: int) -> bool:
    """Nothing changes the person's hand any more: the game is over, or they are out with a place that
    stands (`quiet_hand`; a draw at the end says it again)."""
    return game.is_over or (seat in game.out and not game.settings.teams)


def quiet_hand(game: Game, seat: int) -> tuple[object, ...] | None:
    """Everything a hand message without buttons shows: its cards, out, over and trumps, and nothing of the
    table (the group's table shows whose turn it is, and the clock); None when the seat has buttons, whose
    payloads carry the game step and so change with every move. A player out of a game with places says
    their place from then on (`out_place`), so the end changes their hand only in a draw."""
    if game.to_act == seat or game.legal_actions(seat):
        return None
    if seat in game.out and not game.settings.teams and not (game.result is not None and game.result.draw):
        return (game.hand_masks[seat], True, game.trump_index)  # its place, said when out, stands at the end
    return (game.hand_masks[seat], seat in game.out, game.is_over, game.trump_index)


def trump_change_message(game: Game, tr: Translator) -> Message:
    """Severny: said loudly in the group, since every hand changes value at once."""
    card = game.view(None).severny_card
    text = tr._("Trumps change! {card} was the last card of the talon: {suit} are trumps now.")
    return message([line(bold(text.format(card=card.symbol if card else "", suit=SUIT_SYMBOL[game.trump])))])
