"""The shared flood limits' calls on Redis: one send's turn (`PACE`), a screen posted anew (`SCREEN_POSTED`)
and a chat's pause after a 429.

Apart from the game store because they are the Telegram delivery's, not the game's: every process serving a
token asks them before each send (adapters/telegram/shared_pacing.py), beside the chat's ``messages`` hash
that the store keeps (delivered versions, message ids).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from storage import keys as k
from storage.chats import ChatRef
from storage.pace_scripts import FLIGHT_LANDED, PACE, PACE_PAUSE, SCREEN_POSTED, SCREEN_TURN
from storage.replies import text
from storage.store import RedisGameStore

# One flood limit as the pacing script takes it: burst, rate a second, window limit (0: none), window seconds.
PaceLimit = tuple[float, float, int, float]


@dataclass(frozen=True)
class ScreenTurn:
    """A table or hand about to be sent: ``version`` is refused when any process sent or is sending a newer
    one (``shown`` and ``sending``, the fields of the home chat's messages hash, bot/outbox.py); the message
    id is read from ``message`` in the same call; and while a send of the screen is in flight (``flight``,
    the send's member until `SharedLimits.landed`, ``hold`` seconds at most), other sends of it wait; a
    spaced screen (``every`` seconds, a running game's table) waits that long after its last send landed.
    ``content`` is the field saying what the screen's message shows ("<message>|<digest>|<live>", written
    when a send lands): an edit whose ``drawn`` digest it already shows is "same", never sent. ``owed``:
    the field listing old messages of the screen still to remove (`SharedLimits.posted`)."""

    home: ChatRef
    shown: str
    sending: str
    version: int
    message: str = ""
    flight: str = ""
    hold: float = 5.0
    spaced: str = ""  # the field keeping the screen's next send back after one lands (none: "")
    every: float = 0.0  # for how long, in seconds (0: not spaced)
    content: str = ""  # the field saying what the screen's message shows (none: "")
    drawn: str = ""  # the digest of what this send would show by editing the stored message ("": no edit)
    owed: str = ""  # the field listing the screen's old messages still to remove (none: "")

    def args(self) -> list[Any]:
        return [self.shown, self.sending, self.version]

    def message_args(self) -> list[Any]:
        return [self.message, self.flight, repr(self.hold)]

    def content_args(self) -> list[Any]:
        return [self.content, self.drawn, self.owed]

    def spacing_field(self) -> str:
        return self.spaced if self.every > 0 else ""


@dataclass(frozen=True)
class PaceVerdict:
    """ "send" (``value``: now), "wait" (``value`` seconds; ``token_wait`` of them the token's limits ask),
    "drop" (``value``: the newer version sent) or "same" (the screen's message shows what this send would);
    with "send" of a screen, its stored ``"<game>:<id>"``, what that message shows (``content``) and the old
    messages still owed a removal (``owed``, "<chat>:<id>:<d|s>" separated by spaces)."""

    verdict: str
    value: float
    token_wait: float = 0.0
    message: str = ""
    content: str = ""
    owed: str = ""


class SharedLimits:
    """The PACE and PACE_PAUSE calls of one store."""

    def __init__(self, store: RedisGameStore) -> None:
        self.store = store

    async def pace(
        self,
        platform: str,
        chat: int,
        member: str,
        *,
        now: float | None,
        token: PaceLimit,
        chat_limit: PaceLimit | None,
        spares: tuple[int, int] = (0, 0),
        screen: ScreenTurn | None = None,
        settles: Sequence[tuple[str, str, float]] = (),
        in_flight: float = 0.0,
    ) -> PaceVerdict:
        """One send's turn under a token's shared flood limits (the PACE script). ``chat_limit`` None: a
        call counted for the token only (a delete). ``spares``: sends left to the chat and to the token (see
        the script). ``in_flight``: the seconds after it is let go that a send is counted as made until its
        answer comes (for the token's counts; the screen's own in-flight mark lasts until `landed`);
        ``settles``: earlier sends' ("t" or "c", member, seconds to move it by). One round trip on a single
        Redis; on a cluster the screen is taken in its chat's slot first (two)."""
        store = self.store
        keys = [k.pace_key(platform, "all"), k.pace_key(platform, "all:sent")]
        keys += [k.pace_key(platform, f"chat:{chat}"), k.pace_key(platform, f"chat:{chat}:sent")]
        screen_args: list[Any] = ["", "", 0]  # not a screen, or taken apart on a cluster
        message_args: list[Any] = ["", "", "0"]
        content_args: list[Any] = ["", "", ""]
        spacing = ""  # checked by PACE only on a single Redis (SCREEN_TURN checks it on a cluster)
        stored, notes = "", ["", ""]
        if screen is not None:
            screen_keys = [k.messages_key(screen.home), k.state_key(screen.home)]
            if store.cluster:
                stamp = "" if now is None else repr(now)
                message, flight, hold = screen.message_args()
                turn = [stamp, *screen.args(), message, flight, member, hold, screen.spacing_field()]
                taken = await store.script(SCREEN_TURN, screen_keys, [*turn, *screen.content_args()])
                if text(taken[0]) == "drop":
                    return PaceVerdict("drop", float(text(taken[1])))
                if text(taken[0]) == "wait":
                    return PaceVerdict("wait", float(text(taken[1])))
                if text(taken[0]) == "same":
                    return PaceVerdict("same", float(text(taken[1])))
                stored, notes = text(taken[1]), [text(taken[2]), text(taken[3])]
            else:
                keys += screen_keys
                screen_args, message_args = screen.args(), screen.message_args()
                content_args = screen.content_args()
                spacing = screen.spacing_field()
        args: list[Any] = ["" if now is None else repr(now), member, *spares]
        args += [repr(float(x)) for x in (chat_limit or (0, 0, 0, 0))]
        args += [repr(float(x)) for x in token]
        args += [*screen_args, repr(in_flight), *message_args, spacing, *content_args, len(settles)]
        for scope, settled, seconds in settles:
            args += [scope, settled, repr(seconds)]
        reply = await store.script(PACE, keys, args)
        verdict, value, token_wait = text(reply[0]), float(text(reply[1])), float(text(reply[2]))
        if verdict == "send" and len(reply) > 3:
            if not store.cluster:
                stored, notes = text(reply[3]), [text(reply[4]), text(reply[5])]
        elif screen is not None and store.cluster:
            await self.landed(screen, member, now, sent=False)  # taken, then the budget said wait: let go
        return PaceVerdict(verdict, value, token_wait, stored, notes[0], notes[1])

    async def landed(
        self,
        screen: ScreenTurn,
        member: str,
        now: float | None = None,
        sent: bool = True,
        shows: str | None = None,
        owed_done: Sequence[str] = (),
    ) -> None:
        """The send ``member`` of the screen was answered (or failed): other processes' sends of it may go,
        a spaced screen's once its spacing has passed (``sent``: the send was made, so it counts).
        ``shows``: what the screen's message shows now ("<message>|<digest>|<live>"; "": unknown, as after a
        send whose fate is not known; None: as before, nothing was sent). ``owed_done``: old messages of the
        screen removed meanwhile (as `PaceVerdict.owed` lists them)."""
        if screen.flight or screen.spacing_field():
            every = repr(screen.every) if sent else "0"
            args = ["" if now is None else repr(now), screen.flight, member, screen.spacing_field(), every]
            args += [screen.content, "-" if shows is None else shows, screen.owed, *owed_done]
            await self.store.script(FLIGHT_LANDED, [k.messages_key(screen.home)], args)

    async def posted(self, screen: ScreenTurn, member: str, message: str, owed: str = "") -> bool:
        """The screen's send ``member`` posted it anew as ``message`` ("<game>:<id>"): stored as the screen's
        message, with ``owed`` (what its old message is owed, "<chat>:<id>:<d|s>"; "": nothing) listed until
        done; False, and nothing stored, when another send took the screen meanwhile (its message stands)."""
        keys = [k.messages_key(screen.home), k.state_key(screen.home)]
        args = [screen.message, message, screen.flight, member, screen.owed, owed]
        return bool(int(text(await self.store.script(SCREEN_POSTED, keys, args))))

    async def pace_pause(self, platform: str, chat: int, seconds: float, now: float | None = None) -> float:
        """Telegram answered 429 for ``chat``: no process serving the token sends there for ``seconds``.
        Returns the time (the pacing clock's) it may send again."""
        key = k.pace_key(platform, f"chat:{chat}")
        until = await self.store.script(PACE_PAUSE, [key], ["" if now is None else repr(now), repr(seconds)])
        return float(text(until))
