"""The outgoing side: one queue per Telegram chat, paced within Telegram's flood limits.

Effects become items (`items.py`) queued per destination chat. A worker per busy chat sends them in order:
it waits for the chat's and the bot's pace (`pacing.py`), merges a table (or hand) update into the next one
while it waits, edits the stored table/hand message in place, and sends a new one only when asked or when
the old one is gone. A hand whose turn came after a wait (``ShowHand.announce``) is sent as a new message,
since Telegram notifies only those, and the old one deleted: one more call, not one more message. A table
or hand older than one already queued (another input's, handled at the same time) is never queued. A 429
pauses only that chat; "message is not modified" is avoided by comparing with what was last sent and, should
it happen anyway, counts as done. A 403 from a player's private chat is told to the service and asks the
group to have them open it (`asking.py`).

A chat's queue sends in lanes (`lanes.py`): the game's result and its last table first, then tables and
hands, then informational replies, which also leave the chat a spare send and are merged or dropped while
they wait. A queue exists only while its chat has something to send; its pace (what Telegram still counts)
is kept for the chats that sent most recently, more than the bot's overall limit lets send within a window.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from telegram import Bot, LinkPreviewOptions, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter, TelegramError

from adapters.telegram.asking import Refusals
from adapters.telegram.items import (
    GAME_THREAD,
    HAND,
    INFO,
    POST,
    RESULT,
    RETRACT,
    TABLE,
    Item,
    items_for,
    merged,
)
from adapters.telegram.memory import ChatMemory, ref
from adapters.telegram.miniapp import MiniApp
from adapters.telegram.pacing import Ask, Clock, Limits, LocalPacer, MonotonicClock, Pacer
from adapters.telegram.removal import GONE, Removal
from adapters.telegram.render import Rendered, live, render, split_long
from adapters.telegram.said import SaidForAWhile
from adapters.telegram.turns import ChatQueue, Turn, retry_seconds
from bot.adapter import LRU, DeliveredMarks, Effect, ShowHand, ShownVersions, ShowTable

log = logging.getLogger("durak.telegram")

NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
NETWORK_ATTEMPTS = 3
REMEMBERED_TEXTS = 20_000
REPOST_AFTER = 10  # default of the setting TELEGRAM_REPOST_AFTER (bot/runtime/config.py)
MAX_BACKOFF = 8  # a chat answered 429 again right after its pause waits at most this times retry_after


class Delivery:
    """Every message the bot sends on Telegram goes through here, chat by chat."""

    def __init__(
        self,
        bot: Bot,
        memory: ChatMemory,
        clock: Clock | None = None,
        limits: Limits | None = None,
        migrate: Callable[[str, str], Awaitable[None]] | None = None,
        texts: int = REMEMBERED_TEXTS,
        repost_after: int = REPOST_AFTER,
        pacer: Pacer | None = None,
        private_closed: Callable[[str, str], Awaitable[None]] | None = None,
        mini_app: MiniApp | None = None,
    ) -> None:
        """``migrate``: the app's handler for a group that became a supergroup (old id, new id).
        ``texts``: how many sent messages' texts are remembered (to skip an edit that changes nothing).
        ``repost_after``: a table with more messages than this after it is posted again at the bottom (0: never).
        ``pacer``: Telegram's limits (`pacing.Pacer`); by default kept in this process alone.
        ``private_closed``: told (group, user id) when Telegram refuses a private message to someone.
        ``mini_app``: WEBAPP_URL and WEBAPP_NAME: "Open table" buttons lead there."""
        self.bot, self.memory, self.repost_after, self.mini_app = bot, memory, repost_after, mini_app
        self.clock = clock or MonotonicClock()
        self.limits = limits or Limits()
        self.migrate = migrate
        self.queues: dict[int, ChatQueue] = {}  # only chats with something to send (a worker each)
        self.pacer: Pacer = pacer or LocalPacer(self.limits, self.clock.now())
        self.superseded = 0  # screens dropped because some process had sent a newer one
        self.not_modified = 0  # edits Telegram answered "message is not modified" (none should be made)
        self.sent: LRU[tuple[int, int], Rendered] = LRU(texts)
        self.removal = Removal(bot, self.pacer, self.clock, self.sent)  # old messages deleted or stripped
        self.said = SaidForAWhile(memory, self.removal)  # `Reply.tag` and `Retract`
        # a private chat that refuses: the service is told, and the group asked to open it
        self.refusals = Refusals(memory, lambda: self.bot_username, self.enqueue, private_closed)
        self.shown = ShownVersions()  # the newest table and hand versions queued, so none goes backwards
        self.marks = DeliveredMarks(memory.store)  # what was delivered, kept with the chat (bot/outbox.py)
        self.performed = 0  # items sent (or found sent) since start
        self.in_flight = 0  # items taken off their queue and being sent right now
        self._idle = asyncio.Event()
        self._idle.set()
        self._closing = False

    @property
    def bot_username(self) -> str:
        """The bot's @username, as Telegram answered getMe when the bot connected (links into its chat)."""
        return str(self.bot.username)

    # ---- queueing ----------------------------------------------------------------------------------

    def submit(self, effects: Sequence[Effect], reply_thread: int | None = GAME_THREAD) -> None:
        """Queue the effects; a table or hand older than one already queued or sent is dropped (`fresh`).
        Across chats the most important go first (`Item.rank`): the acting player's hand, then the table."""
        fresh: list[Effect] = []
        for effect in effects:
            if not isinstance(effect, ShowTable | ShowHand) or self.shown.fresh(effect):
                fresh.append(effect)
            elif effect.new_message or (isinstance(effect, ShowHand) and effect.announce):
                self._still_new(items_for([effect])[0])
        for item in sorted(items_for(fresh, reply_thread), key=lambda item: item.rank):
            self.enqueue(item)  # the acting hand's chat asks for its turn first (each chat keeps its order)

    def _still_new(self, overtaken: Item) -> None:
        """A screen that asked for a new message (a new lobby, a hand after /start, a turn announced) was
        overtaken by its own next change: if that is still queued, it opens the new message instead."""
        queue = self.queues.get(overtaken.chat)
        if queue is not None:
            queue.pending.still_new(overtaken)

    def enqueue(self, item: Item) -> None:
        if self._closing:
            return
        home = self.memory.current(item.home)
        if home != item.home:
            item = item.moved(item.home, home)
        if item.waits_for_turn and not item.queued_at:  # the one kind of item held from when it came
            item = replace(item, queued_at=self.clock.now())
        queue = self.queues.get(item.chat)
        if queue is None:
            queue = self.queues[item.chat] = ChatQueue()
        if item.kind == RETRACT and queue.pending.withdraw(item):
            log.info("chat %s: %s for %s withdrawn before it was sent", item.chat, item.tag, item.user_id)
        queue.pending.add(item, (item.lane == INFO or item.answer) and self._behind(item.chat, queue))
        if item.lane != INFO and queue.waking is not None and not queue.waking.done():
            queue.waking.set_result(None)  # a reply was waiting for a spare send: this one goes first
        if queue.worker is None:
            self._idle.clear()
            queue.worker = asyncio.get_running_loop().create_task(self._work(item.chat, queue))

    def _behind(self, chat: int, queue: ChatQueue) -> bool:
        """The chat cannot send all that waits and one more now and still keep a spare send."""
        now = self.clock.now()
        spare = self.limits.reply_spare + len(queue.pending)
        return queue.paused_until > now or self.pacer.behind(chat, now, spare)

    async def wait_idle(self, timeout: float = 10.0) -> None:
        """Until every queue is empty (tests and the bench use it; seconds are real)."""
        await asyncio.wait_for(self._idle.wait(), timeout)

    @property
    def unsent(self) -> int:
        """Items queued or being sent right now, over every chat."""
        return sum(len(queue.pending) for queue in self.queues.values()) + self.in_flight

    async def close(self, drain: float = 10.0) -> None:
        """Send what is queued for up to ``drain`` real seconds, then stop; record what was delivered
        (`DeliveredMarks.close`), so a later process re-sends only the rest (`bot.game.catch_up`). Logs the
        figures of the way out: queued at the start, sent, left, seconds."""
        queued, performed, begin = self.unsent, self.performed, time.monotonic()
        chats = len(self.queues)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), drain)
        left = self.unsent
        self._closing = True
        workers = [q.worker for q in self.queues.values() if q.worker is not None]
        for worker in workers:
            worker.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        await self.marks.close()
        figures = {"queued": queued, "chats": chats, "sent": self.performed - performed, "left": left}
        log.log(
            logging.WARNING if left else logging.INFO,
            "delivery stopped: %d queued in %d chats, %d sent, %d left for the next process, %.1f s",
            queued,
            chats,
            figures["sent"],
            left,
            time.monotonic() - begin,
            extra={"fields": figures | {"seconds": round(time.monotonic() - begin, 2)}},
        )

    # ---- the worker of one chat ----------------------------------------------------------------------

    async def _work(self, chat: int, queue: ChatQueue) -> None:
        try:
            while queue.pending and not self._closing:
                item = queue.pending.head()
                await self.memory.load(item.home)
                if queue.pending.head() is not item:
                    continue  # merged with a newer update, or overtaken by a more urgent one, meanwhile
                if item.kind == RETRACT:  # a removal: a call, not a message (`Removal`)
                    queue.pending.pop_head()
                    await self.said.retract(item)
                    continue
                if not self.pacer.shared and self._unchanged(item):  # else the shared pacer knows better
                    queue.pending.pop_head()
                    self._delivered(item)
                    continue
                now = self.clock.now()
                spare = self.limits.reply_spare if item.lane == INFO else 0
                if queue.paused_until > now:
                    await self.clock.sleep(queue.paused_until - now)
                    continue
                held = self._held_for_turn(item, now)
                if held > 0:
                    await self._wait_for_spare(queue, held)  # its player's next change may join it
                    continue
                admission = await self.pacer.admit(self._ask(item, spare), now)
                self._follow(item, admission.message)
                if admission.newer:
                    self._drop_superseded(queue, item, admission.newer)
                    continue
                if admission.same:  # its message shows this already, whichever process sent it
                    if queue.pending.head() is item:
                        queue.pending.pop_head()
                        self._delivered(item)
                    continue
                if admission.wait > 0:
                    wait = admission.wait
                    napping = spare or item.spaced  # a reply, or a table a newer one or the end may join
                    await (self._wait_for_spare(queue, wait) if napping else self.clock.sleep(wait))
                    continue  # the head may have been merged with a newer update meanwhile
                head = queue.pending.head()
                if head is not item and head.kind != POST and merged(item, head) is None:
                    continue  # a more urgent screen came first meanwhile: it asks for its own turn
                item = queue.pending.pop_head()  # the one let go, or its own newer update
                self.in_flight += 1
                try:
                    sent = await self._send_paced(queue, item, Turn.of(admission), now)
                finally:
                    self.in_flight -= 1
                if not sent:
                    queue.pending.put_back(item)
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug must not leave the chat's queue dead forever
            log.exception("delivery to chat %s failed", chat)
            queue.pending.clear()
        finally:
            queue.worker = None
            if queue.pending and not self._closing:
                queue.worker = asyncio.get_running_loop().create_task(self._work(chat, queue))
            else:
                self._went_idle(chat, queue)

    def _ask(self, item: Item, spare: int) -> Ask:
        screen = (item.home, item.key, item.version) if item.kind in (TABLE, HAND) and item.version else None
        every = self.limits.table_every if item.spaced else 0.0
        edit = screen is not None and self.pacer.shared and not (item.announce or item.new_message)
        return Ask(item.chat, item.rank, spare, screen, every, self._digest(item) if edit else "")

    def _digest(self, item: Item) -> str:
        """What a table or hand shows, as a short digest (a hand's game too: another game's hand is never
        taken for it), the same in every process: what the screen's content mark compares."""
        rendered = self._rendered(item)
        shown = (item.game_id if item.kind == HAND else "", rendered.text, rendered.keyboard)
        return hashlib.blake2b(repr(shown).encode(), digest_size=8).hexdigest()

    def _shows(self, item: Item) -> str:
        """The screen's content mark once ``item`` is shown: its stored message, digest, and whether it has
        buttons to press."""
        stored = self.memory.stored(item.home, item.key)
        return f"{stored}|{self._digest(item)}|{int(live(self._rendered(item)))}" if stored else ""

    def _held_for_turn(self, item: Item, now: float) -> float:
        """Seconds a waiting player's hand still waits for their next change (`Item.waits_for_turn`): as
        long as a running game's table may wait (`Limits.table_every`), from when it was queued."""
        if not item.waits_for_turn:
            return 0.0
        return max(0.0, item.queued_at + self.limits.table_every - now)

    def _follow(self, item: Item, stored: str) -> None:
        """The screen's message as the shared pacer read it when letting it go: another process may have
        posted it anew since this one last looked (adapters/telegram/shared_pacing.py)."""
        if stored:
            self.memory.follow(item.home, item.key, stored)

    def _drop_superseded(self, queue: ChatQueue, item: Item, newer: int) -> None:
        """Some process already sent (or is sending) a newer version of this screen: showing this one would
        put the chat back. It goes, and with it the new message it may have asked for: the newer one was
        sent by whoever had it."""
        if queue.pending.head() is item:
            queue.pending.pop_head()
            self.superseded += 1
            log.info(
                "chat %s: %s version %d dropped, %d already sent", item.chat, item.key, item.version, newer
            )

    def _went_idle(self, chat: int, queue: ChatQueue) -> None:
        """An idle chat keeps no queue (its pace is the pacer's); no queue left: all is sent."""
        if self.queues.get(chat) is queue:
            del self.queues[chat]
        if not self.queues:
            self._idle.set()

    async def _wait_for_spare(self, queue: ChatQueue, seconds: float) -> None:
        """A reply waits for a spare send, or until a table or hand joins the queue and goes first (so too a
        spaced table and a waiting hand: a newer one merges into it, the end goes at once)."""
        queue.waking = asyncio.get_running_loop().create_future()
        napping = asyncio.ensure_future(self.clock.sleep(seconds))
        try:
            await asyncio.wait((napping, queue.waking), return_when=asyncio.FIRST_COMPLETED)
        finally:
            napping.cancel()
            queue.waking = None

    async def _send_paced(self, queue: ChatQueue, item: Item, turn: Turn, started: float) -> bool:
        """Perform one item the pacer let go (``turn``); False to keep it at the head of the queue (and try
        again later)."""
        for attempt in range(NETWORK_ATTEMPTS):
            if attempt:
                admitted = await self._admitted(item)
                if admitted is None:
                    return True  # superseded meanwhile, or shown already
                turn, started = admitted
            try:
                await self._perform(item, turn)
                self._delivered(item)
                self.performed += 1
                queue.strikes = 0
                return True
            except RetryAfter as error:
                await self._flood_control(queue, item.chat, retry_seconds(error))
                return False
            except ChatMigrated as error:
                await self._migrated(item, str(error.new_chat_id))
                return True
            except Forbidden as error:
                await self.refusals.forbidden(item, error)
                return True
            except NetworkError as error:  # includes TimedOut; BadRequest is handled in _perform
                if isinstance(error, BadRequest):
                    log.error("chat %s: %s refused: %s", item.chat, item.kind, error)
                    return True
                log.warning("chat %s: network error (%s), attempt %d", item.chat, error, attempt + 1)
                turn.shows = ""  # the edit may have landed or not: what the message shows is not known
                await self.clock.sleep(1.0 + attempt)
            except TelegramError as error:
                log.error("chat %s: %s failed: %s", item.chat, item.kind, error)
                turn.shows = ""
                return True
            finally:
                self.pacer.settle(item.chat, turn.ticket, started, self.clock.now())
                ask, now = self._ask(item, 0), self.clock.now()
                await self.pacer.landed(ask, turn.ticket, now, turn.shows, turn.owed_done)
        return True

    async def _admitted(self, item: Item) -> tuple[Turn, float] | None:
        """Wait for the pacer to let ``item`` go again (a retry after a network error): its turn and the
        time, or None when a newer version of it was sent meanwhile (or its message shows it already)."""
        while True:
            now = self.clock.now()
            admission = await self.pacer.admit(self._ask(item, 0), now)
            self._follow(item, admission.message)
            if admission.newer:
                self.superseded += 1
                return None
            if admission.same:
                return None
            if not admission.wait:
                return Turn.of(admission), now
            await self.clock.sleep(admission.wait)

    async def _flood_control(self, queue: ChatQueue, chat: int, seconds: float) -> None:
        """Telegram answered 429: the chat waits what it asked, for every process serving the token; one
        429 after another doubles the wait each time (up to MAX_BACKOFF times), so a disagreement between
        our clock and Telegram's never becomes a loop of 429s."""
        queue.strikes += 1
        seconds *= min(MAX_BACKOFF, 2 ** (queue.strikes - 1))
        log.warning("chat %s: flood control, pausing it %.0fs", chat, seconds)
        now = self.clock.now()
        queue.paused_until = now + seconds
        await self.pacer.pause(chat, seconds, now)

    def _delivered(self, item: Item) -> None:
        """A table or hand is shown: record its version with the chat, for a restarted process to compare."""
        if item.kind == TABLE:
            self.marks.note_table(ref(item.home), item.version)
        elif item.kind == HAND and not isinstance(item.message, Rendered):
            self.marks.note_hand(ref(item.home), item.user_id, item.version, item.message)

    # ---- Bot API calls -------------------------------------------------------------------------------

    def _rendered(self, item: Item) -> Rendered:
        if isinstance(item.message, Rendered):
            return item.message
        return render(item.message, self.bot_username, private_chat=item.chat > 0, app=self.mini_app)

    def _target(self, item: Item) -> int | None:
        """The message to edit for a table or hand item, if there is one that may still be edited."""
        if item.kind == POST or item.new_message:
            return None
        stored = self.memory.message_id(item.home, item.key)
        if stored is None:
            return None
        game_id, message_id = stored
        if item.kind == HAND and game_id != item.game_id:
            return None  # never turn an old game's hand into the new game's
        return message_id

    def _unchanged(self, item: Item) -> bool:
        if item.announce:
            return False  # a new message is wanted at the bottom even when the old one shows the same
        target = self._target(item)
        return target is not None and self.sent.get((item.chat, target)) == self._rendered(item)

    async def _perform(self, item: Item, turn: Turn) -> None:
        if item.kind == POST:
            await self._post(item)
            return
        rendered = self._rendered(item)
        target = self._target(item)
        stored = True
        if item.kind == TABLE and target is not None and self._buried(item, target):
            stored = await self._repost(item, rendered, target, turn)
        elif item.kind == HAND and item.announce:
            stored = await self._announce(item, rendered, target, turn)
        elif target is None or not await self._edit(item, rendered, target):
            thread = self.memory.thread(item.home) if item.kind == TABLE else None
            replaced = self._replaced(item, turn) if target is None else None  # else it is gone
            stored = await self._post_screen(item, rendered, thread, turn, replaced)
        if stored:
            turn.shows = self._shows(item)
        await self._settle_owed(turn)

    async def _edit(self, item: Item, rendered: Rendered, target: int) -> bool:
        """Edit the screen's message; False when it is gone (deleted, too old): post it anew."""
        try:
            await self.bot.edit_message_text(
                rendered.text,
                item.chat,
                target,
                parse_mode=ParseMode.HTML,
                reply_markup=rendered.markup(),
                link_preview_options=NO_PREVIEW,
            )
        except BadRequest as error:
            reason = str(error).lower()
            if "not modified" in reason:  # never asked for: counted, and it is shown all the same
                self.not_modified += 1
                log.warning(
                    "chat %s: %s message %s was not modified by an edit", item.chat, item.kind, target
                )
                self._remember_sent(item.chat, target, rendered)
                return True
            if not any(gone in reason for gone in GONE):
                raise
            log.info(
                "chat %s: %s message %s cannot be edited (%s): sending a new one", item.chat, item.kind, target,
                error,
            )  # fmt: skip
            return False
        self._remember_sent(item.chat, target, rendered)
        return True

    def _replaced(self, item: Item, turn: Turn) -> tuple[int, str] | None:
        """The message a hand posted anew replaces, and what it is owed: deleted when it is this game's (one
        hand a person); another game's loses its buttons, when it still shows some (its last edit, the
        game's end, may never have been made: overtaken by this game's first hand in another process)."""
        stored = self.memory.message_id(item.home, item.key) if item.kind == HAND else None
        if stored is None:
            return None
        game_id, message_id = stored
        if game_id == item.game_id:
            return message_id, "d"
        return (message_id, "s") if self._live(item, message_id, turn) else None

    def _live(self, item: Item, message_id: int, turn: Turn) -> bool:
        """Whether the screen's stored message shows buttons to press, as far as is known (unknown: no)."""
        if self.pacer.shared:
            shown, _, has_buttons = turn.content.rpartition("|")
            return shown.rpartition("|")[0] == self.memory.stored(item.home, item.key) and has_buttons == "1"
        sent = self.sent.get((item.chat, message_id))
        return sent is not None and live(sent)

    async def _announce(self, item: Item, rendered: Rendered, old: int | None, turn: Turn) -> bool:
        """Their turn came after a wait: the hand as a new message, which Telegram notifies (an edit is
        silent), then the old hand deleted so one hand stays. A failed send keeps the old one (the item is
        tried again or the chat is closed); a failed delete is owed until made (`_post_screen`)."""
        replaced = (old, "d") if old is not None else self._replaced(item, turn)
        return await self._post_screen(item, rendered, None, turn, replaced)

    async def _post_screen(
        self,
        item: Item,
        rendered: Rendered,
        thread: int | None,
        turn: Turn,
        replaced: tuple[int, str] | None = None,
    ) -> bool:
        """A table or hand as a new message, whose id is the screen's from now on, for every process; the
        message it ``replaced`` is then deleted ("d") or stripped of its buttons ("s"). With a shared pacer
        the id is stored only while this send still holds the screen, with that removal owed until it is
        made: should it fail, whichever process sends the screen next makes it. False when another send took
        the screen meanwhile: its message stands, and this one is deleted."""
        sent = await self._send(item.chat, rendered, thread)
        self._remember_sent(item.chat, sent.message_id, rendered)
        value = f"{item.game_id}:{sent.message_id}"
        owed = f"{item.chat}:{replaced[0]}:{replaced[1]}" if replaced is not None else ""
        ask = self._ask(item, 0)
        stored = await self.pacer.posted(ask, turn.ticket, value, owed) if ask.screen is not None else None
        if stored is False:
            log.info("chat %s: %s posted anew after another send of it: removed", item.chat, item.key)
            await self.removal.delete(item.chat, sent.message_id)
            return False
        if stored is None:
            await self.memory.remember(item.home, {item.key: value})
        else:
            self.memory.follow(item.home, item.key, value)
        if replaced is not None and await self.removal.remove(item.chat, *replaced):
            turn.owed_done.append(owed)
        return True

    async def _settle_owed(self, turn: Turn) -> None:
        """What the screen's old messages are still owed after another send posted it anew and could not
        remove them (a failed call, a process gone): this send makes it."""
        for entry in turn.owed.split():
            chat, _, rest = entry.partition(":")
            message_id, _, action = rest.partition(":")
            if entry in turn.owed_done or not message_id.isdigit():
                continue
            if await self.removal.remove(int(chat), int(message_id), action):
                turn.owed_done.append(entry)

    def _buried(self, item: Item, table: int) -> bool:
        """More than ``repost_after`` messages came after the table: players would scroll up for it. (Not
        the table that shows the end: the result is posted right after it, at the bottom.)"""
        if self.repost_after <= 0 or item.lane == RESULT:
            return False
        return self.memory.newer_than(item.chat, table) > self.repost_after

    async def _repost(self, item: Item, rendered: Rendered, old: int, turn: Turn) -> bool:
        """The table buried under the group's chatter: the update goes out as a new message at the bottom,
        in the game's topic, and the old one is deleted so the group keeps one table. As with an announced
        hand, a failed send keeps the old table; a failed delete is owed until made."""
        log.info("chat %s: table %s buried under the chat's messages: posting it again", item.chat, old)
        return await self._post_screen(item, rendered, self.memory.thread(item.home), turn, (old, "d"))

    async def _post(self, item: Item) -> None:
        if item.tag and await self.said.unsaid(item):
            log.info("chat %s: %s for %s no longer true: not sent", item.chat, item.tag, item.user_id)
            return
        thread = None
        if item.chat < 0:
            thread = self.memory.thread(item.home) if item.thread == GAME_THREAD else item.thread
        parts = [item.message] if isinstance(item.message, Rendered) else split_long(item.message)
        sent = []
        for part in parts:
            if isinstance(part, Rendered):
                rendered = part
            else:
                rendered = render(part, self.bot_username, item.chat > 0, self.mini_app)
            sent.append((await self._send(item.chat, rendered, thread)).message_id)
        if item.tag:
            await self.said.said(item, sent)

    async def _send(self, chat: int, rendered: Rendered, thread: int | None) -> Message:
        """One new message in HTML with its keyboard, in the forum topic when there is one."""
        sent = await self.bot.send_message(
            chat,
            rendered.text,
            parse_mode=ParseMode.HTML,
            reply_markup=rendered.markup(),
            message_thread_id=thread,
            link_preview_options=NO_PREVIEW,
        )
        self.memory.saw_message(chat, sent.message_id)  # the chat's newest id: how far the table is buried
        return sent

    def _remember_sent(self, chat: int, message_id: int, rendered: Rendered) -> None:
        self.sent[(chat, message_id)] = rendered

    async def _migrated(self, item: Item, new: str) -> None:
        """The group became a supergroup: move the chat (the app's handler) and requeue there."""
        old = item.home
        if self.migrate is not None:
            await self.migrate(old, new)
        self.moved(old, new)
        self.enqueue(replace(item.moved(old, new), new_message=item.kind == TABLE or item.new_message))

    def moved(self, old: str, new: str) -> None:
        """Requeue everything waiting for ``old`` under ``new`` (after `ChatMemory` recorded the move)."""
        queue = self.queues.get(int(old))
        if queue is None:
            return
        for item in queue.pending.drain():
            self.enqueue(item.moved(old, new))
