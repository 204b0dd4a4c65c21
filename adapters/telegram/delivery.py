"""The outgoing side: one queue per Telegram chat, paced within Telegram's flood limits.

Effects become items (`items.py`) queued per destination chat. A worker per busy chat sends them in order:
it waits for the chat's and the bot's pace (`pacing.py`), merges a table (or hand) update into the next one
while it waits, edits the stored table/hand message in place, and sends a new one only when asked or when
the old one is gone. A table or hand older than one already queued (another input's, handled at the same
time) is never queued. A 429 pauses only that chat; "message is not modified" is avoided by comparing with
what was last sent and, should it happen anyway, counts as done. A 403 from a player's private chat
becomes a "start me" request in the group; the game itself just waits for that player.
"""

from __future__ import annotations

import asyncio
import html
import logging
import warnings
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import timedelta

from telegram import Bot, LinkPreviewOptions, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter, TelegramError

from adapters.telegram.deeplink import deep_link
from adapters.telegram.items import GAME_THREAD, HAND, POST, TABLE, Item, items_for, merged
from adapters.telegram.memory import ChatMemory
from adapters.telegram.pacing import Clock, Limits, MonotonicClock, Pace
from adapters.telegram.render import URL, Rendered, render, split_long
from bot import payloads
from bot.effects import Effect, ShowHand, ShownVersions, ShowTable
from bot.i18n import translator

log = logging.getLogger("durak.telegram")

NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
GONE = ("message to edit not found", "message can't be edited", "message_id_invalid")
NETWORK_ATTEMPTS = 3
REMEMBERED_TEXTS = 20_000


@dataclass
class ChatQueue:
    pace: Pace
    pending: deque[Item] = field(default_factory=deque)
    paused_until: float = 0.0
    worker: asyncio.Task[None] | None = None


class Delivery:
    def __init__(
        self,
        bot: Bot,
        memory: ChatMemory,
        clock: Clock | None = None,
        limits: Limits | None = None,
        migrate: Callable[[str, str], Awaitable[None]] | None = None,
    ) -> None:
        self.bot = bot
        self.memory = memory
        self.clock = clock or MonotonicClock()
        self.limits = limits or Limits()
        self.migrate = migrate  # the app's handler for a group that became a supergroup
        self.bot_username = ""
        self.queues: dict[int, ChatQueue] = {}
        self.overall = self.limits.overall(self.clock.now())
        self.sent: OrderedDict[tuple[int, int], Rendered] = OrderedDict()
        self.asked: set[tuple[str, str, str]] = set()  # (group, game, user) told to start the bot
        self.shown = ShownVersions()  # the newest table and hand versions queued, so none goes backwards
        self._idle = asyncio.Event()
        self._idle.set()
        self._closing = False

    # ---- queueing ----------------------------------------------------------------------------------

    def submit(self, effects: Sequence[Effect], reply_thread: int | None = GAME_THREAD) -> None:
        """Queue the effects; a table or hand older than one already queued or sent is dropped (`fresh`)."""
        fresh: list[Effect] = []
        for effect in effects:
            if not isinstance(effect, ShowTable | ShowHand) or self.shown.fresh(effect):
                fresh.append(effect)
            elif effect.new_message:
                self._still_new(items_for([effect])[0])
        for item in items_for(fresh, reply_thread):
            self.enqueue(item)

    def _still_new(self, overtaken: Item) -> None:
        """A screen that asked for a new message (a new lobby, a hand after /start) was overtaken by its own
        next change: if that is still queued, it opens the new message instead."""
        queue = self.queues.get(overtaken.chat)
        if queue is None:
            return
        for index in range(len(queue.pending) - 1, -1, -1):
            if (both := merged(overtaken, queue.pending[index])) is not None:
                queue.pending[index] = both
                return

    def enqueue(self, item: Item) -> None:
        if self._closing:
            return
        home = self.memory.current(item.home)
        if home != item.home:
            item = item.moved(item.home, home)
        queue = self.queues.get(item.chat)
        if queue is None:
            now = self.clock.now()
            pace = self.limits.group(now) if item.chat < 0 else self.limits.private(now)
            queue = self.queues[item.chat] = ChatQueue(pace)
        if queue.pending and (both := merged(queue.pending[-1], item)) is not None:
            queue.pending[-1] = both
        else:
            queue.pending.append(item)
        if queue.worker is None:
            self._idle.clear()
            queue.worker = asyncio.get_running_loop().create_task(self._work(item.chat, queue))

    async def wait_idle(self, timeout: float = 10.0) -> None:
        """Until every queue is empty (tests and the bench use it; seconds are real)."""
        await asyncio.wait_for(self._idle.wait(), timeout)

    async def close(self, drain: float = 3.0) -> None:
        """Send what is queued for up to ``drain`` real seconds, then stop."""
        try:
            await asyncio.wait_for(self._idle.wait(), drain)
        except TimeoutError:
            log.warning(
                "stopping with %d chats still queued", sum(bool(q.pending) for q in self.queues.values())
            )
        self._closing = True
        workers = [q.worker for q in self.queues.values() if q.worker is not None]
        for worker in workers:
            worker.cancel()
        await asyncio.gather(*workers, return_exceptions=True)

    # ---- the worker of one chat ----------------------------------------------------------------------

    async def _work(self, chat: int, queue: ChatQueue) -> None:
        try:
            while queue.pending and not self._closing:
                item = queue.pending[0]
                await self.memory.load(item.home)
                if self._unchanged(item):
                    queue.pending.popleft()
                    continue
                now = self.clock.now()
                wait = max(queue.paused_until - now, queue.pace.wait(now), self.overall.wait(now))
                if wait > 0:
                    await self.clock.sleep(wait)
                    continue  # the head may have been merged with a newer update meanwhile
                queue.pending.popleft()
                if not await self._send_paced(queue, item):
                    queue.pending.appendleft(item)
                    if len(queue.pending) > 1 and (both := merged(item, queue.pending[1])) is not None:
                        queue.pending.popleft()
                        queue.pending[0] = both
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug must not leave the chat's queue dead forever
            log.exception("delivery to chat %s failed", chat)
            queue.pending.clear()
        finally:
            queue.worker = None
            if queue.pending and not self._closing:
                queue.worker = asyncio.get_running_loop().create_task(self._work(chat, queue))
            elif all(q.worker is None for q in self.queues.values()):
                self._idle.set()

    async def _send_paced(self, queue: ChatQueue, item: Item) -> bool:
        """Perform one item; False to keep it at the head of the queue (and try again later)."""
        for attempt in range(NETWORK_ATTEMPTS):
            started = self.clock.now()
            queue.pace.take(started)
            self.overall.take(started)
            try:
                await self._perform(item)
                return True
            except RetryAfter as error:
                seconds = retry_seconds(error)
                log.warning("chat %s: flood control, pausing it %.0fs", item.chat, seconds)
                queue.paused_until = self.clock.now() + seconds
                return False
            except ChatMigrated as error:
                await self._migrated(item, str(error.new_chat_id))
                return True
            except Forbidden as error:
                await self._forbidden(item, error)
                return True
            except NetworkError as error:  # includes TimedOut; BadRequest is handled in _perform
                if isinstance(error, BadRequest):
                    log.error("chat %s: %s refused: %s", item.chat, item.kind, error)
                    return True
                log.warning("chat %s: network error (%s), attempt %d", item.chat, error, attempt + 1)
                await self.clock.sleep(1.0 + attempt)
            except TelegramError as error:
                log.error("chat %s: %s failed: %s", item.chat, item.kind, error)
                return True
            finally:
                finished = self.clock.now()
                queue.pace.settle(started, finished)
                self.overall.settle(started, finished)
        return True

    # ---- Bot API calls -------------------------------------------------------------------------------

    def _rendered(self, item: Item) -> Rendered:
        if isinstance(item.message, Rendered):
            return item.message
        return render(item.message, self.bot_username, private_chat=item.chat > 0)

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
        target = self._target(item)
        return target is not None and self.sent.get((item.chat, target)) == self._rendered(item)

    async def _perform(self, item: Item) -> None:
        if item.kind == POST:
            await self._post(item)
            return
        rendered = self._rendered(item)
        target = self._target(item)
        if target is not None:
            try:
                await self.bot.edit_message_text(
                    rendered.text,
                    item.chat,
                    target,
                    parse_mode=ParseMode.HTML,
                    reply_markup=rendered.markup(),
                    link_preview_options=NO_PREVIEW,
                )
                self._remember_sent(item.chat, target, rendered)
                return
            except BadRequest as error:
                reason = str(error).lower()
                if "not modified" in reason:
                    self._remember_sent(item.chat, target, rendered)
                    return
                if not any(gone in reason for gone in GONE):
                    raise
                log.info(
                    "chat %s: %s message %s cannot be edited (%s): sending a new one",
                    item.chat,
                    item.kind,
                    target,
                    error,
                )
        thread = self.memory.thread(item.home) if item.kind == TABLE else None
        sent = await self._send(item.chat, rendered, thread)
        self._remember_sent(item.chat, sent.message_id, rendered)
        await self.memory.remember(item.home, {item.key: f"{item.game_id}:{sent.message_id}"})

    async def _post(self, item: Item) -> None:
        thread = None
        if item.chat < 0:
            thread = self.memory.thread(item.home) if item.thread == GAME_THREAD else item.thread
        parts = [item.message] if isinstance(item.message, Rendered) else split_long(item.message)
        for part in parts:
            rendered = part if isinstance(part, Rendered) else render(part, self.bot_username, item.chat > 0)
            await self._send(item.chat, rendered, thread)

    async def _send(self, chat: int, rendered: Rendered, thread: int | None) -> Message:
        """One new message in HTML with its keyboard, in the forum topic when there is one."""
        return await self.bot.send_message(
            chat,
            rendered.text,
            parse_mode=ParseMode.HTML,
            reply_markup=rendered.markup(),
            message_thread_id=thread,
            link_preview_options=NO_PREVIEW,
        )

    def _remember_sent(self, chat: int, message_id: int, rendered: Rendered) -> None:
        self.sent[(chat, message_id)] = rendered
        self.sent.move_to_end((chat, message_id))
        while len(self.sent) > REMEMBERED_TEXTS:
            self.sent.popitem(last=False)

    # ---- when a chat refuses -------------------------------------------------------------------------

    async def _forbidden(self, item: Item, error: Forbidden) -> None:
        if item.chat < 0:
            log.warning("group %s refuses messages (%s): dropped", item.chat, error)
            return
        if item.kind != HAND:
            log.info("private chat %s closed (%s): message dropped", item.chat, error)
            return
        key = (item.home, item.game_id, item.user_id)
        if key in self.asked:
            return
        if len(self.asked) > REMEMBERED_TEXTS:
            self.asked.clear()  # a bounded memory: at worst someone is asked twice
        self.asked.add(key)
        log.info("user %s has not started the bot: asking in group %s", item.user_id, item.home)
        self.enqueue(Item(POST, int(item.home), item.home, self.start_me(item)))

    def start_me(self, item: Item) -> Rendered:
        """ "<name>, open a private chat with me": the player's cards cannot be sent until they do."""
        lang = self.memory.langs.get(item.home) or self.memory.user_langs.get(item.user_id)
        _ = translator(lang)._
        name = self.memory.names.get(item.user_id) or _("player")
        mention = f'<a href="tg://user?id={int(item.user_id)}">{html.escape(name, quote=False)}</a>'
        text = html.escape(
            _("{name}, I cannot send you your cards until you open a private chat with me: tap the button.")
        ).format(name=mention)
        payload = payloads.Payload(item.home, item.game_id, 0, payloads.HAND).encode()
        button = (_("Show my cards"), URL, deep_link(self.bot_username, payload))
        return Rendered(text, ((button,),))

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
        waiting, queue.pending = list(queue.pending), deque()
        for item in waiting:
            self.enqueue(item.moved(old, new))


def retry_seconds(error: RetryAfter) -> float:
    """``retry_after`` as seconds, whether PTB gives an int (22.x) or a timedelta (announced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PTB's notice that the type will change: we accept both
        value = error.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)
