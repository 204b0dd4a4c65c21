"""The lobby: open, join, leave, add and remove AI seats, start, cancel, rematch. Pure: see `Decision`."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from bot import buttons
from bot.context import Context
from bot.decision import LOBBY_TTL, Decision, show
from bot.effects import Alert, Effect, Notice, Reply, ShowHand, ShowTable
from bot.game.clock import retract_reminder
from bot.game.moves import start_game
from bot.game.seats import retract_open_private, seat_of
from bot.i18n import Translator, translator
from bot.inputs import User
from bot.names import shown_name
from bot.render.lobby import render_lobby
from bot.render.rules import settings_problem
from bot.render.text import line, message
from bot.session import MAX_SEATS, ChatSession, Finished, Lobby, Playing, Seat
from core import Game, Settings, SettingsError


def merged_settings(chat_defaults: str | None, words: str) -> Settings:
    """The chat's defaults, overridden field by field by the words given to `/newgame`."""
    base = Settings.from_words(chat_defaults or "")
    given = Settings.from_words(words)
    return base.model_copy(update={name: getattr(given, name) for name in given.model_fields_set})


def open_lobby(
    ctx: Context,
    session: ChatSession | None,
    user: User,
    words: str,
    title: str,
    thread_id: str = "",
    private: bool = False,
) -> Decision:
    """A new lobby, its creator seated; in a group of a platform where the bot cannot write first, the creator
    is written to at once (`lobby_opened`)."""
    tr = ctx.tr(ctx.record.lang or user.lang)
    _ = tr._
    if session is not None and isinstance(session.header, Lobby | Playing):
        busy = (
            _("A game is already open in this chat.")
            if isinstance(session.header, Playing)
            else _("A lobby is already open in this chat: join it.")
        )
        return show(Reply(ctx.chat_id, message([line(busy)])))
    try:
        settings = merged_settings(ctx.record.settings, words)
    except SettingsError as error:
        problem = settings_problem(error, tr)
        return show(Reply(ctx.chat_id, message([line(_("Cannot start: {error}").format(error=problem))])))
    lobby = Lobby(
        lobby_id=ctx.new_id(),
        creator=user.id,
        words=settings.to_words(),
        seats=[Seat(user_id=user.id, name=user.name, lang=user.lang)],
        created_at=ctx.now,
        chat_title=title,
        lang=ctx.record.lang or user.lang,
        thread_id=thread_id,
    )
    decision = lobby_saved(ctx, lobby, new_message=True)
    if not private and not ctx.writes_first:
        decision.effects.append(lobby_opened(ctx.chat_id, user, title))
    return decision


def lobby_opened(group: str, creator: User, title: str) -> Reply:
    """A line to the private chat of whoever opened a lobby in ``group``, where a platform cannot write
    first to someone who never opened that chat (Telegram): a refusal marks the creator's seat now, as
    a typed /join does, instead of at their first hand."""
    _ = translator(creator.lang)._
    text = _("Your lobby in {chat} is open; your cards will come here.").format(chat=title)
    if not title:
        text = _("Your lobby is open; your cards will come here.")
    return Reply(group, message([line(text)]), private=True, user_id=creator.id)


def lobby_saved(ctx: Context, lobby: Lobby, *first: Effect, new_message: bool = False) -> Decision:
    """The lobby saved and drawn again, after ``first`` (the presser's answer, a request to open a private
    chat)."""
    rendered = render_lobby(lobby, ctx.chat_id, ctx.tr(lobby.lang), ctx.opens_app)
    table = ShowTable(ctx.chat_id, rendered, lobby.lobby_id, new_message=new_message)
    return Decision(effects=[*first, table], save=True, session=ChatSession(header=lobby), ttl=LOBBY_TTL)


@dataclass(frozen=True, slots=True)
class LobbyPress:
    """Who pressed a lobby button (or typed its command), with what the press itself says."""

    ctx: Context
    lobby: Lobby
    user: User
    is_admin: bool  # commands only: a press does not say whether its presser administers the chat
    seats_seen: int | None  # a press's step: the number of seats its lobby message showed

    @property
    def seated(self) -> bool:
        return seat_of(self.lobby, self.user.id) is not None

    @property
    def full(self) -> bool:
        return len(self.lobby.seats) >= self.lobby.capacity

    @property
    def lobby_changed(self) -> bool:
        """The press was drawn on a lobby with other seats: a repeated delivery, or an older message."""
        return self.seats_seen is not None and self.seats_seen != len(self.lobby.seats)

    def refuse(self, text: str, show_alert: bool = True) -> Decision:
        return show(Alert(self.user.id, text, show_alert=show_alert))


def lobby_action(
    ctx: Context,
    lobby: Lobby,
    user: User,
    button: buttons.LobbyButton,
    is_admin: bool = False,
    seats_seen: int | None = None,
) -> Decision:
    """Join, leave, pick a team, add or remove an AI or a seat, start or cancel, through `LOBBY_PRESSES`.
    A refusal answers with its reason; a change answers the presser by itself being shown (a short alert
    where it says more than the lobby does, else the press's plain acknowledgement, `bot.game.presses`)."""
    press = LobbyPress(ctx, lobby, user, is_admin, seats_seen)
    return LOBBY_PRESSES[type(button)](press, button)


def join(press: LobbyPress, _button: buttons.Join) -> Decision:
    _ = press.ctx.tr(press.user.lang)._
    if press.seated:
        return press.refuse(_("You are already in."), show_alert=False)
    if press.full:
        return press.refuse(_("The game is full."))
    user = press.user
    seats = [*press.lobby.seats, Seat(user_id=user.id, name=user.name, lang=user.lang)]
    changed = press.lobby.model_copy(update={"seats": seats})
    return lobby_saved(press.ctx, changed, Alert(user.id, _("You joined.")))


def leave(press: LobbyPress, _button: buttons.Leave) -> Decision:
    _ = press.ctx.tr(press.user.lang)._
    lobby, user = press.lobby, press.user
    if not press.seated:
        return press.refuse(_("You are not in this game."), show_alert=False)
    seats = [s for s in lobby.seats if s.user_id != user.id]
    gone = retract_open_private(press.ctx, [s for s in lobby.seats if s.user_id == user.id])
    if not any(not s.is_ai for s in seats):
        return closed(press.ctx, _("The lobby is closed: everyone left."), *gone)
    creator = lobby.creator if lobby.creator != user.id else next(s.user_id for s in seats if not s.is_ai)
    changed = lobby.model_copy(update={"seats": seats, "creator": creator})
    return lobby_saved(press.ctx, changed, Alert(user.id, _("You left.")), *gone)


def start(press: LobbyPress, _button: buttons.Start) -> Decision:
    ctx, lobby, user = press.ctx, press.lobby, press.user
    _ = ctx.tr(user.lang)._
    if len(lobby.seats) < 2:
        return press.refuse(_("At least two players are needed."))
    waited = ctx.now - lobby.created_at >= ctx.config.start_wait
    if user.id != lobby.creator and not press.full and not waited and not press.is_admin:
        return press.refuse(_("Only the creator can start now; anyone can once the game is full."))
    if not press.seated and user.id != lobby.creator and not press.is_admin:
        return press.refuse(_("Join the game first."))
    unreachable = [seat.name for seat in lobby.seats if seat.private_closed_at is not None]
    if unreachable:
        text = _("Waiting for {names} to open a private chat with me (or the creator removes them).")
        return press.refuse(text.format(names=", ".join(unreachable)))
    if Settings.from_words(lobby.words).teams:
        problem = team_problem(lobby, ctx.tr(user.lang))
        if problem:
            return press.refuse(problem)
        lobby = lobby.model_copy(update={"seats": seated_by_team(lobby.seats)})
    dealt = start_game(ctx, lobby)
    names = ", ".join(seat.name for seat in lobby.seats)
    return replace(
        dealt, effects=[Alert(user.id, _("The game starts: {names}.").format(names=names)), *dealt.effects]
    )


def cancel(press: LobbyPress, _button: buttons.Cancel) -> Decision:
    _ = press.ctx.tr(press.user.lang)._
    if press.user.id != press.lobby.creator and not press.is_admin:
        return press.refuse(_("Only the creator or an admin can cancel."))
    return closed(
        press.ctx, _("The game was cancelled."), *retract_open_private(press.ctx, press.lobby.seats)
    )


def add_ai(press: LobbyPress, button: buttons.AddAi) -> Decision:
    """An AI takes the next seat, at the request of someone seated (or an admin): a passer-by cannot fill
    the lobby with AIs and leave no seat for the friends who wanted to play."""
    ctx, lobby = press.ctx, press.lobby
    _ = ctx.tr(press.user.lang)._
    if not (press.seated or press.is_admin):
        return press.refuse(_("Join the game first to add an AI."))
    if press.full:
        return press.refuse(_("The game is full."))
    if press.lobby_changed:  # add nobody twice
        return press.refuse(
            _("The lobby has changed: press Add AI again if you still want one."), show_alert=False
        )
    name_of = ctx.tr(lobby.lang)._("AI {number}").format
    taken = {s.user_id for s in lobby.seats} | {s.name for s in lobby.seats if s.is_ai}
    number = next(
        n
        for n in itertools.count(1)
        if f"ai{n}-{lobby.lobby_id}" not in taken and name_of(number=n) not in taken
    )
    seat = Seat(
        user_id=f"ai{number}-{lobby.lobby_id}", name=name_of(number=number), lang=lobby.lang, ai=button.level
    )
    return lobby_saved(ctx, lobby.model_copy(update={"seats": [*lobby.seats, seat]}))


def remove_ai(press: LobbyPress, _button: buttons.RemoveAi) -> Decision:
    """The AI seated last leaves, at the request of someone seated (or an admin): a seat for a friend."""
    lobby = press.lobby
    _ = press.ctx.tr(press.user.lang)._
    if not (press.seated or press.is_admin):
        return press.refuse(_("Join the game first to remove an AI."))
    if press.lobby_changed:  # as for Add AI: a repeated press must not remove a second AI
        return press.refuse(
            _("The lobby has changed: press Remove AI again if you still want to."), show_alert=False
        )
    ais = [index for index, seat in enumerate(lobby.seats) if seat.is_ai]
    if not ais:
        return press.refuse(_("There is no AI seat to remove."), show_alert=False)
    seats = [seat for index, seat in enumerate(lobby.seats) if index != ais[-1]]
    return lobby_saved(press.ctx, lobby.model_copy(update={"seats": seats}))


def remove_closed_seat(press: LobbyPress, button: buttons.RemoveSeat) -> Decision:
    """The creator (or an admin) removes a person who cannot receive a hand, so the others can start."""
    lobby = press.lobby
    _ = press.ctx.tr(press.user.lang)._
    if press.user.id != lobby.creator and not press.is_admin:
        return press.refuse(_("Only the creator can remove a player."))
    if press.lobby_changed or not button.seat < len(lobby.seats):
        return press.refuse(_("The lobby has changed: look at it again."), show_alert=False)
    if lobby.seats[button.seat].private_closed_at is None:
        return press.refuse(_("That player can receive their cards now."), show_alert=False)
    seats = [seat for seat_no, seat in enumerate(lobby.seats) if seat_no != button.seat]
    gone = retract_open_private(press.ctx, [lobby.seats[button.seat]])
    return lobby_saved(press.ctx, lobby.model_copy(update={"seats": seats}), *gone)


def pick_team(press: LobbyPress, button: buttons.PickTeam) -> Decision:
    """Pick a side (joining first if need be); a side holds at most half of a six-player table."""
    lobby, user = press.lobby, press.user
    _ = press.ctx.tr(user.lang)._
    if not Settings.from_words(lobby.words).teams:
        return press.refuse(_("That button is not valid."))
    team = button.team
    if sum(1 for s in lobby.seats if s.team == team and s.user_id != user.id) >= MAX_SEATS // 2:
        return press.refuse(_("That team is full."))
    seats = list(lobby.seats)
    mine = seat_of(lobby, user.id)
    if mine is None:
        if press.full:
            return press.refuse(_("The game is full."))
        seats.append(Seat(user_id=user.id, name=user.name, lang=user.lang, team=team))
    else:
        seats[mine] = seats[mine].model_copy(update={"team": team})
    return lobby_saved(press.ctx, lobby.model_copy(update={"seats": seats}))


LobbyHandler = Callable[[LobbyPress, Any], Decision]
LOBBY_PRESSES: dict[type[buttons.LobbyButton], LobbyHandler] = {
    buttons.Join: join,
    buttons.Leave: leave,
    buttons.PickTeam: pick_team,
    buttons.AddAi: add_ai,
    buttons.RemoveAi: remove_ai,
    buttons.RemoveSeat: remove_closed_seat,
    buttons.Start: start,
    buttons.Cancel: cancel,
}


def closed(ctx: Context, text: str, *after: Effect) -> Decision:
    """The lobby (or game) message turns into a short notice without buttons, followed by ``after``; the
    record is removed."""
    return Decision(
        effects=[ShowTable(ctx.chat_id, message([line(text)])), *after],
        save=True,
        session=None,
        ttl=LOBBY_TTL,
    )


def game_cancelled(ctx: Context, header: Playing, user: User, game: Game | None = None) -> Decision:
    """`/cancel` during a game: the table closes, the chat is told who stopped it (one message), and every
    hand loses its buttons, so nobody is left pressing the moves of a game that is gone."""
    _ = ctx.tr(header.lang)._
    seat_no = seat_of(header, user.id)
    who = header.seats[seat_no].name if seat_no is not None else shown_name(user.name) or _("Player")
    hands = [
        ShowHand(
            ctx.chat_id,
            seat.user_id,
            message([line(ctx.tr(seat.lang)._("The game was cancelled."))]),
            header.game_id,
            final=True,
        )
        for seat in header.seats
        if not seat.is_ai
    ]
    notice = Notice(ctx.chat_id, message([line(_("{who} cancelled the game.").format(who=who))]))
    gone = [*retract_reminder(ctx, header, game, None, None), *retract_open_private(ctx, header.seats)]
    return closed(ctx, _("The game was cancelled."), notice, *hands, *gone)


def rematch(ctx: Context, finished: Finished, user: User) -> Decision:
    """A new lobby with the same seats and rules; the opener follows the chat's last durak (rules.md §3.2)."""
    lobby = Lobby(
        lobby_id=ctx.new_id(),
        creator=user.id if seat_of(finished, user.id) is not None else finished.creator,
        words=finished.words,
        seats=list(finished.seats),
        created_at=ctx.now,
        chat_title=finished.chat_title,
        lang=finished.lang,
        thread_id=finished.thread_id,
    )
    return lobby_saved(ctx, lobby, new_message=True)


def team_problem(lobby: Lobby, tr: Translator) -> str:
    """Why these seats cannot start a team game, or "" when they can."""
    _ = tr._
    count = len(lobby.seats)
    if count not in (4, 6):
        return _("Team games need 4 players (two pairs) or 6 (two teams of three).")
    for team in (0, 1):
        if sum(1 for s in lobby.seats if s.team == team) > count // 2:
            return _("One team has more players than the other can match: pick sides again.")
    return ""


def seated_by_team(seats: list[Seat]) -> list[Seat]:
    """Partners alternate round the table: team A on even seats, team B on odd; players who did not pick
    a side fill the smaller team in the order they joined."""
    sides: list[list[Seat]] = [[s for s in seats if s.team == 0], [s for s in seats if s.team == 1]]
    for seat in seats:
        if seat.team is None:
            team = 0 if len(sides[0]) <= len(sides[1]) else 1
            sides[team].append(seat.model_copy(update={"team": team}))
    return [seat for pair in zip(sides[0], sides[1], strict=True) for seat in pair]
