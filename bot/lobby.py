"""The lobby: open, join, leave, add and remove AI seats, start, cancel, rematch. Pure: see `Decision`."""

from __future__ import annotations

import itertools

from bot import payloads
from bot.context import Context
from bot.decision import LOBBY_TTL, Decision, show
from bot.effects import Alert, Notice, Reply, ShowHand, ShowTable
from bot.i18n import Translator
from bot.inputs import User
from bot.moves import start_game
from bot.names import shown_name
from bot.render.lobby import render_lobby
from bot.render.rules import settings_problem
from bot.render.text import line, message
from bot.seats import seat_of
from bot.session import AI_LEVELS, ChatSession, Finished, Lobby, Playing, Seat
from core import Settings, SettingsError

MAX_SEATS = 6


def capacity(words: str) -> int:
    """At most six players, and only as many as the deck gives six cards to."""
    return min(MAX_SEATS, Settings.from_words(words).deck // 6)


def merged_settings(chat_defaults: str | None, words: str) -> Settings:
    """The chat's defaults, overridden field by field by the words given to `/newgame`."""
    base = Settings.from_words(chat_defaults or "")
    given = Settings.from_words(words)
    return base.model_copy(update={name: getattr(given, name) for name in given.model_fields_set})


def open_lobby(
    ctx: Context, session: ChatSession | None, user: User, words: str, title: str, thread_id: str = ""
) -> Decision:
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
    return lobby_saved(ctx, lobby, new_message=True)


def lobby_saved(ctx: Context, lobby: Lobby, *extra: Alert, new_message: bool = False) -> Decision:
    rendered = render_lobby(lobby, ctx.chat_id, capacity(lobby.words), ctx.tr(lobby.lang), ctx.opens_app)
    table = ShowTable(ctx.chat_id, rendered, lobby.lobby_id, new_message=new_message)
    return Decision(effects=[*extra, table], save=True, session=ChatSession(header=lobby), ttl=LOBBY_TTL)


def lobby_action(
    ctx: Context, lobby: Lobby, user: User, code: str, is_admin: bool = False, seats_seen: int | None = None
) -> Decision:
    """Join, leave, add or remove an AI, start or cancel; each answers the user with a short alert.

    ``is_admin`` comes with commands only (a press does not say whether its presser administers the chat)."""
    _ = ctx.tr(user.lang)._
    seated = seat_of(lobby, user.id) is not None
    full = len(lobby.seats) >= capacity(lobby.words)
    if code == payloads.JOIN:
        if seated:
            return show(Alert(user.id, _("You are already in.")))
        if full:
            return show(Alert(user.id, _("The game is full."), show_alert=True))
        seats = [*lobby.seats, Seat(user_id=user.id, name=user.name, lang=user.lang)]
        return lobby_saved(ctx, lobby.model_copy(update={"seats": seats}), Alert(user.id, _("You joined.")))
    if code == payloads.LEAVE:
        if not seated:
            return show(Alert(user.id, _("You are not in this game.")))
        seats = [s for s in lobby.seats if s.user_id != user.id]
        if not any(not s.is_ai for s in seats):
            return closed(ctx, _("The lobby is closed: everyone left."))
        creator = lobby.creator if lobby.creator != user.id else next(s.user_id for s in seats if not s.is_ai)
        changed = lobby.model_copy(update={"seats": seats, "creator": creator})
        return lobby_saved(ctx, changed, Alert(user.id, _("You left.")))
    if code.startswith(payloads.TEAM):
        return pick_team(ctx, lobby, user, code.partition(":")[2], full)
    if code.startswith(payloads.ADD_AI):
        return add_ai(ctx, lobby, user, code.partition(":")[2] or "normal", seated or is_admin, seats_seen)
    if code == payloads.REMOVE_AI:
        return remove_ai(ctx, lobby, user, seated or is_admin, seats_seen)
    if code.startswith(payloads.REMOVE_SEAT):
        return remove_closed_seat(ctx, lobby, user, code.partition(":")[2], is_admin, seats_seen)
    if code == payloads.START:
        if len(lobby.seats) < 2:
            return show(Alert(user.id, _("At least two players are needed."), show_alert=True))
        waited = ctx.now - lobby.created_at >= ctx.config.start_wait
        if user.id != lobby.creator and not full and not waited and not is_admin:
            return show(
                Alert(
                    user.id,
                    _("Only the creator can start now; anyone can once the game is full."),
                    show_alert=True,
                )
            )
        if not seated and user.id != lobby.creator and not is_admin:
            return show(Alert(user.id, _("Join the game first."), show_alert=True))
        unreachable = [seat.name for seat in lobby.seats if seat.private_closed_at is not None]
        if unreachable:
            text = _("Waiting for {names} to open a private chat with me (or the creator removes them).")
            return show(Alert(user.id, text.format(names=", ".join(unreachable)), show_alert=True))
        if Settings.from_words(lobby.words).teams:
            problem = team_problem(lobby, ctx.tr(user.lang))
            if problem:
                return show(Alert(user.id, problem, show_alert=True))
            lobby = lobby.model_copy(update={"seats": seated_by_team(lobby.seats)})
        decision = start_game(ctx, lobby)
        decision.effects.insert(0, Alert(user.id, ""))
        return decision
    if code == payloads.CANCEL:
        if user.id != lobby.creator and not is_admin:
            return show(Alert(user.id, _("Only the creator or an admin can cancel."), show_alert=True))
        return closed(ctx, _("The game was cancelled."), Alert(user.id, ""))
    return show(Alert(user.id, _("That button is not valid."), show_alert=True))


def add_ai(
    ctx: Context, lobby: Lobby, user: User, level: str, may_seat: bool, seats_seen: int | None
) -> Decision:
    """An AI takes the next seat, at the request of someone seated (or an admin): a passer-by cannot fill
    the lobby with AIs and leave no seat for the friends who wanted to play."""
    _ = ctx.tr(user.lang)._
    if level not in AI_LEVELS:
        return show(Alert(user.id, _("That button is not valid."), show_alert=True))
    if not may_seat:
        return show(Alert(user.id, _("Join the game first to add an AI."), show_alert=True))
    if len(lobby.seats) >= capacity(lobby.words):
        return show(Alert(user.id, _("The game is full."), show_alert=True))
    if seats_seen is not None and seats_seen != len(lobby.seats):
        # a repeated delivery of the same press, or a press on an older lobby message: add nobody twice
        return show(Alert(user.id, _("The lobby has changed: press Add AI again if you still want one.")))
    name_of = ctx.tr(lobby.lang)._("AI {number}").format
    taken = {s.user_id for s in lobby.seats} | {s.name for s in lobby.seats if s.is_ai}
    number = next(
        n
        for n in itertools.count(1)
        if f"ai{n}-{lobby.lobby_id}" not in taken and name_of(number=n) not in taken
    )
    seat = Seat(
        user_id=f"ai{number}-{lobby.lobby_id}", name=name_of(number=number), lang=lobby.lang, ai=level
    )
    return lobby_saved(ctx, lobby.model_copy(update={"seats": [*lobby.seats, seat]}), Alert(user.id, ""))


def remove_ai(ctx: Context, lobby: Lobby, user: User, may_seat: bool, seats_seen: int | None) -> Decision:
    """The AI seated last leaves, at the request of someone seated (or an admin): a seat for a friend."""
    _ = ctx.tr(user.lang)._
    if not may_seat:
        return show(Alert(user.id, _("Join the game first to remove an AI."), show_alert=True))
    if seats_seen is not None and seats_seen != len(lobby.seats):
        # as for Add AI: a repeated press must not remove a second AI
        return show(Alert(user.id, _("The lobby has changed: press Remove AI again if you still want to.")))
    ais = [index for index, seat in enumerate(lobby.seats) if seat.is_ai]
    if not ais:
        return show(Alert(user.id, _("There is no AI seat to remove.")))
    seats = [seat for index, seat in enumerate(lobby.seats) if index != ais[-1]]
    return lobby_saved(ctx, lobby.model_copy(update={"seats": seats}), Alert(user.id, ""))


def remove_closed_seat(
    ctx: Context, lobby: Lobby, user: User, index: str, is_admin: bool, seats_seen: int | None
) -> Decision:
    """The creator (or an admin) removes a person who cannot receive a hand, so the others can start."""
    _ = ctx.tr(user.lang)._
    if user.id != lobby.creator and not is_admin:
        return show(Alert(user.id, _("Only the creator can remove a player."), show_alert=True))
    number = int(index) if index.isdigit() else -1
    if (seats_seen is not None and seats_seen != len(lobby.seats)) or not 0 <= number < len(lobby.seats):
        return show(Alert(user.id, _("The lobby has changed: look at it again.")))
    if lobby.seats[number].private_closed_at is None:
        return show(Alert(user.id, _("That player can receive their cards now.")))
    seats = [seat for seat_no, seat in enumerate(lobby.seats) if seat_no != number]
    return lobby_saved(ctx, lobby.model_copy(update={"seats": seats}), Alert(user.id, ""))


def closed(ctx: Context, text: str, *extra: Alert) -> Decision:
    """The lobby (or game) message turns into a short notice without buttons; the record is removed."""
    return Decision(
        effects=[*extra, ShowTable(ctx.chat_id, message([line(text)]))],
        save=True,
        session=None,
        ttl=LOBBY_TTL,
    )


def game_cancelled(ctx: Context, header: Playing, user: User) -> Decision:
    """`/cancel` during a game: the table closes, the chat is told who stopped it (one message), and every
    hand loses its buttons, so nobody is left pressing the moves of a game that is gone."""
    _ = ctx.tr(header.lang)._
    seat_no = seat_of(header, user.id)
    who = header.seats[seat_no].name if seat_no is not None else shown_name(user.name) or _("Player")
    decision = closed(ctx, _("The game was cancelled."))
    decision.effects.append(
        Notice(ctx.chat_id, message([line(_("{who} cancelled the game.").format(who=who))]))
    )
    for seat in header.seats:
        if not seat.is_ai:
            text = ctx.tr(seat.lang)._("The game was cancelled.")
            decision.effects.append(
                ShowHand(ctx.chat_id, seat.user_id, message([line(text)]), header.game_id)
            )
    return decision


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
    return lobby_saved(ctx, lobby, Alert(user.id, ""), new_message=True)


def pick_team(ctx: Context, lobby: Lobby, user: User, side: str, full: bool) -> Decision:
    """Pick a side (joining first if need be); a side holds at most half of a six-player table."""
    _ = ctx.tr(user.lang)._
    if side not in ("0", "1") or not Settings.from_words(lobby.words).teams:
        return show(Alert(user.id, _("That button is not valid."), show_alert=True))
    team = int(side)
    if sum(1 for s in lobby.seats if s.team == team and s.user_id != user.id) >= MAX_SEATS // 2:
        return show(Alert(user.id, _("That team is full."), show_alert=True))
    seats = list(lobby.seats)
    mine = seat_of(lobby, user.id)
    if mine is None:
        if full:
            return show(Alert(user.id, _("The game is full."), show_alert=True))
        seats.append(Seat(user_id=user.id, name=user.name, lang=user.lang, team=team))
    else:
        seats[mine] = seats[mine].model_copy(update={"team": team})
    return lobby_saved(ctx, lobby.model_copy(update={"seats": seats}), Alert(user.id, ""))


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
