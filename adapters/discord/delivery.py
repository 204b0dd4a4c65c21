"""Effects that no interaction answers: the table message, notices, other players' hands, reminders.

The channel's table is one message edited in place; its id is stored with the chat
(``messages["table"] = "<game id>:<message id>"``), so any process, or this one after a restart, edits the
same message, until more than ``DISCORD_REPOST_AFTER`` messages bury it (counted from the gateway,
`adapters.discord.chatter`): its next update is then posted at the bottom and the old one deleted. Table
edits of one channel go through one worker that always sends the newest content: while an edit is in
flight, newer tables replace each other, so a quick bout costs two edits, not a dozen. A table
or hand older than one already shown (another interaction's, or the turn timer's, handled at the same time)
is dropped (`ShownVersions`). What was delivered (the table's version, each hand's fingerprint) is written
with the channel (`bot.outbox`), so a restarted process re-renders what a dead one never sent: the table,
and hands in DMs; an ephemeral hand cannot be (its interaction token lived in the dead process), but any
tap on it brings it up to date. A note said for a while (a turn reminder, `Reply.tag`) is kept with the
channel where it went, and deleted when the service retracts it (`Retract`: the turn it was about passed).
Discord's per-route rate limits are left to discord.py, which waits out a 429 and retries.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any

import discord

from adapters.discord.chatter import Chatter
from adapters.discord.hands import HandRegistry, hand_parts
from adapters.discord.render import layout, to_embed
from adapters.discord.texts import say
from adapters.discord.views import buttons_view
from bot.adapter import (
    DISCORD,
    ChatRef,
    DeliveredMarks,
    Effect,
    Message,
    MessageMemory,
    Notice,
    Reply,
    Retract,
    ShowHand,
    ShownVersions,
    ShowTable,
    StoreUnavailable,
    hand_mark,
    said_mark,
    said_marks,
)

log = logging.getLogger("durak.discord.delivery")

PLATFORM = DISCORD
DM_REFUSED = 50007
GONE = (10003, 10008, 10015, 50027)  # unknown channel / message / webhook, expired token


def chat_ref(chat: str) -> ChatRef:
    return ChatRef(PLATFORM, chat)


def dm_key(user_id: str) -> str:
    return f"dm:{user_id}"


def hand_key(user_id: str) -> str:
    return f"hand:{user_id}"


@dataclass
class TableSlot:
    pending: ShowTable | None = None
    new: bool = False  # a new message is wanted (a new lobby) rather than an edit
    announce: bool = False  # the pending table pings its ``turn_user`` (a re-post: edits never notify)
    worker: asyncio.Task[None] | None = None


class Delivery:
    def __init__(
        self,
        client: discord.Client,
        store: MessageMemory,
        hands: HandRegistry,
        chatter: Chatter | None = None,
    ) -> None:
        self.client = client
        self.store = store
        self.hands = hands
        self.chatter = chatter or Chatter()  # how far each channel's table is buried
        self.tables: dict[str, TableSlot] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.table_writes = 0  # messages posted or edited for tables (merging is measured by tests)
        self.shown = ShownVersions()  # the newest table and hand versions on their way: none goes backwards
        self.marks = DeliveredMarks(store)  # what was delivered, kept with the channel (bot/outbox.py)

    # ---- bookkeeping ---------------------------------------------------------------------------------

    def spawn(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def settled(self, timeout: float = 10.0) -> None:
        """Wait until every table edit and background delivery started so far has finished."""
        async with asyncio.timeout(timeout):
            while self.tasks:
                await asyncio.gather(*list(self.tasks), return_exceptions=True)

    def channel(self, chat: str) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(int(chat))

    # ---- the table -----------------------------------------------------------------------------------

    def show_table(self, effect: ShowTable) -> None:
        """Queue the newest table of a channel; a new lobby's post is kept a post, with the newest content."""
        if not self.shown.fresh(effect):
            waiting = self.tables.get(effect.chat)
            if effect.new_message and waiting is not None and waiting.pending is not None:
                waiting.new = True  # a new lobby overtaken by its own next change: that one is posted
            return
        slot = self.tables.setdefault(effect.chat, TableSlot())
        slot.new = effect.new_message or (slot.pending is not None and slot.new)
        queued = slot.pending
        slot.announce = effect.announce or (
            queued is not None and slot.announce and queued.turn_user == effect.turn_user
        )  # a ping still due to the same person survives a newer table
        slot.pending = effect
        if slot.worker is None or slot.worker.done():
            slot.worker = self.spawn(self._table_worker(effect.chat, slot))

    async def _table_worker(self, chat: str, slot: TableSlot) -> None:
        while slot.pending is not None:
            effect, new, announce = slot.pending, slot.new, slot.announce
            slot.pending, slot.new, slot.announce = None, False, False
            try:
                await self._write_table(effect, new, announce)
            except (discord.HTTPException, StoreUnavailable) as error:
                log.warning("table of channel %s not shown: %s", effect.chat, error)
            except Exception:  # one bad table must not stop the channel's later tables
                log.exception("table of channel %s failed", effect.chat)
        if self.tables.get(chat) is slot:
            del self.tables[chat]  # nothing pending: an idle channel keeps no slot

    async def _write_table(self, effect: ShowTable, new: bool, announce: bool = False) -> None:
        """Edit the channel's table in place; post it anew for a new lobby, when it is gone, to ping the
        person whose turn just came (``announce``), or when more than ``DISCORD_REPOST_AFTER`` messages
        buried it (players would scroll up for it); a re-posted table's old message is deleted, so the
        channel keeps one."""
        chat = chat_ref(effect.chat)
        record = await self.store.load(chat)
        game_id, _, message_id = record.messages.get("table", "").rpartition(":")
        embed, view = to_embed(effect.message), buttons_view(layout(effect.message))
        channel = self.channel(effect.chat)
        content, quiet = turn_mention(effect), discord.AllowedMentions.none()
        self.table_writes += 1
        ping = announce and bool(effect.turn_user)
        if message_id and not new and (ping or self.chatter.buried(effect.chat, int(message_id))):
            await self._repost_table(effect, content, embed, view, message_id, ping)
            return
        if message_id and not new:
            try:
                await channel.get_partial_message(int(message_id)).edit(
                    content=content, embed=embed, view=view, allowed_mentions=quiet
                )
                self.marks.note_table(chat, effect.version)
                if effect.game_id and effect.game_id != game_id:
                    await self.store.set_messages(chat, {"table": f"{effect.game_id}:{message_id}"})
                return
            except discord.NotFound:
                log.info("table message of channel %s is gone; posting a new one", effect.chat)
        sent = await channel.send(content, embed=embed, allowed_mentions=quiet, **with_view(view))
        self.marks.note_table(chat, effect.version)
        await self.store.set_messages(chat, {"table": f"{effect.game_id or '-'}:{sent.id}"})
        if message_id and new:  # the old table's buttons would only answer "this game is over"
            with contextlib.suppress(discord.HTTPException):
                await channel.get_partial_message(int(message_id)).edit(view=None)

    async def _repost_table(
        self,
        effect: ShowTable,
        content: str | None,
        embed: discord.Embed,
        view: discord.ui.View | None,
        old_id: str,
        ping: bool = True,
    ) -> None:
        """The table as a new message at the bottom, then the old table deleted. With ``ping`` its mention
        notifies only the person whose turn it is (Discord notifies new messages only, never edits);
        without (a table moved down from under the chatter) it notifies nobody."""
        chat, channel = chat_ref(effect.chat), self.channel(effect.chat)
        mentions = discord.AllowedMentions.none()
        if ping:
            mentions = discord.AllowedMentions(
                everyone=False, roles=False, users=[discord.Object(int(effect.turn_user))], replied_user=False
            )
        sent = await channel.send(content, embed=embed, allowed_mentions=mentions, **with_view(view))
        self.marks.note_table(chat, effect.version)
        await self.store.set_messages(chat, {"table": f"{effect.game_id or '-'}:{sent.id}"})
        with contextlib.suppress(discord.HTTPException):  # already gone: nothing left to tidy
            await channel.get_partial_message(int(old_id)).delete()

    # ---- everything else -----------------------------------------------------------------------------

    async def deliver(self, effects: list[Effect]) -> None:
        """Show effects to channels and to players outside any interaction (timers, other players)."""
        messages: dict[str, dict[str, str]] = {}
        for effect in effects:
            try:
                if isinstance(effect, ShowTable):
                    self.show_table(effect)
                elif isinstance(effect, Notice):
                    await self.post(effect.chat, effect.message)
                elif isinstance(effect, ShowHand):
                    await self.push_hand(effect, await self._messages(effect.chat, messages))
                elif isinstance(effect, Reply) and effect.private and effect.user_id:
                    where = await self.push_private_text(
                        effect.chat,
                        effect.user_id,
                        effect.message,
                        await self._messages(effect.chat, messages),
                    )
                    if effect.tag and where:
                        await self.store.set_messages(
                            chat_ref(effect.chat),
                            {said_mark(effect.tag, effect.user_id, where): str(effect.version)},
                        )
                elif isinstance(effect, Reply):
                    await self.post(effect.chat, effect.message)
                elif isinstance(effect, Retract):
                    messages.pop(effect.chat, None)  # read again: another process may have said it
                    await self.retract(effect, await self._messages(effect.chat, messages))
            except (discord.HTTPException, StoreUnavailable) as error:
                log.warning(
                    "%s for channel %s not delivered: %s", type(effect).__name__, effect_chat(effect), error
                )

    async def _messages(self, chat: str, cache: dict[str, dict[str, str]]) -> dict[str, str]:
        if chat not in cache:
            cache[chat] = dict((await self.store.load(chat_ref(chat))).messages)
        return cache[chat]

    async def post(self, chat: str, message: Message, content: str | None = None) -> discord.Message:
        mentions = discord.AllowedMentions(everyone=False, roles=False, users=True)
        view = buttons_view(layout(message))
        return await self.channel(chat).send(
            content, embed=to_embed(message), allowed_mentions=mentions, **with_view(view)
        )

    async def push_hand(self, hand: ShowHand, messages: dict[str, str]) -> None:
        """Another player's hand changed: in their DMs if they opted in, and in their live ephemeral hand
        if they have one (opting in forgets it; a later "My hand" in the channel makes a new one). Asked
        again before each: a newer hand may have come meanwhile."""
        if not self.shown.fresh(hand):
            return
        if messages.get(dm_key(hand.user_id)):
            await self.dm_hand(hand, messages)
        live = self.hands.get(hand.chat, hand.user_id)
        if live is None or not self.shown.fresh(hand):
            return  # nothing to edit: the table shows whose turn it is, and "My hand" brings the hand
        embed, view = hand_parts(hand, self.hands.lang(hand.user_id), live_until=live.expires, in_dm=False)
        try:
            if hand.new_message:
                sent = await live.webhook.send(
                    embed=embed, view=view or discord.utils.MISSING, ephemeral=True, wait=True
                )
                live.message_id = sent.id
            else:
                await live.webhook.edit_message(live.message_id, embed=embed, view=view)
            self.marks.note_hand(chat_ref(hand.chat), hand.user_id, hand.version, hand.message)
        except discord.HTTPException as error:
            log.info("hand of %s in %s no longer editable (%s)", hand.user_id, hand.chat, error)
            self.hands.forget(hand.chat, hand.user_id)

    async def dm_hand(self, hand: ShowHand, messages: dict[str, str]) -> bool:
        """Send or edit the hand in the player's DMs. False (and reported in the channel) when refused."""
        embed, view = hand_parts(hand, self.hands.lang(hand.user_id), live_until=None, in_dm=True)
        stored = messages.get(hand_key(hand.user_id), "")
        dm_channel, _, message_id = stored.partition(":")
        try:
            if message_id and not hand.new_message:
                try:
                    partial = self.client.get_partial_messageable(
                        int(dm_channel), type=discord.ChannelType.private
                    )
                    await partial.get_partial_message(int(message_id)).edit(embed=embed, view=view)
                    self.marks.note_hand(chat_ref(hand.chat), hand.user_id, hand.version, hand.message)
                    return True
                except discord.NotFound:
                    pass
            channel_id = dm_channel or str(
                (await self.client.http.start_private_message(int(hand.user_id)))["id"]
            )
            dm = self.client.get_partial_messageable(int(channel_id), type=discord.ChannelType.private)
            sent = await dm.send(embed=embed, **with_view(view))
        except discord.Forbidden as error:
            if error.code != DM_REFUSED:
                raise
            await self.dm_refused(hand.chat, hand.user_id, messages)
            return False
        messages[hand_key(hand.user_id)] = f"{channel_id}:{sent.id}"
        shown = hand_mark(hand.user_id, hand.version, hand.message) if hand.version else {}
        await self.store.set_messages(
            chat_ref(hand.chat), {hand_key(hand.user_id): messages[hand_key(hand.user_id)], **shown}
        )
        return True

    async def dm_refused(self, chat: str, user_id: str, messages: dict[str, str]) -> None:
        """Discord refused a DM (50007): say so in the channel, and show the hand there again."""
        messages.pop(dm_key(user_id), None)
        await self.store.set_messages(chat_ref(chat), {dm_key(user_id): None, hand_key(user_id): None})
        text = say("dm_refused", self.hands.lang(user_id), mention=f"<@{user_id}>")
        await self.channel(chat).send(
            text, allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=True)
        )

    async def set_dm(self, chat: str, user_id: str, on: bool) -> None:
        await self.store.set_messages(chat_ref(chat), {dm_key(user_id): "on" if on else None})

    async def push_private_text(
        self, chat: str, user_id: str, message: Message, messages: dict[str, str]
    ) -> str:
        """A note for one player (a turn reminder): DM if they opted in, else an ephemeral follow-up on
        their live hand, else a line in the channel that mentions them. Where it went, as `retract` finds
        it: ``<channel>:<message>`` (a DM or the channel), ``e:<message>`` (an ephemeral follow-up)."""
        embed = to_embed(message)
        if messages.get(dm_key(user_id)):
            try:
                channel = await self.client.http.start_private_message(int(user_id))
                dm = await self.client.get_partial_messageable(int(channel["id"])).send(embed=embed)
                return f"{channel['id']}:{dm.id}"
            except discord.Forbidden:
                pass
        live = self.hands.get(chat, user_id)
        if live is not None:
            try:
                sent = await live.webhook.send(embed=embed, ephemeral=True, wait=True)
                return f"e:{sent.id}"
            except discord.HTTPException:
                self.hands.forget(chat, user_id)
        posted = await self.post(chat, message, content=f"<@{user_id}>")
        return f"{chat}:{posted.id}"

    async def retract(self, effect: Retract, messages: dict[str, str]) -> None:
        """What was said under the effect's tag for its person before its version is no longer true: each
        such message is deleted (an ephemeral one through the live hand's token, when this process has it)."""
        done: dict[str, str | None] = {}
        for name, (where, version) in said_marks(messages, effect.tag, effect.user_id).items():
            if effect.version and version >= effect.version:
                continue  # said again since, and true
            channel, _, message_id = where.partition(":")
            with contextlib.suppress(discord.HTTPException, ValueError):
                if channel == "e":
                    live = self.hands.get(effect.chat, effect.user_id)
                    if live is not None:
                        await live.webhook.delete_message(int(message_id))
                else:
                    await (
                        self.client.get_partial_messageable(int(channel))
                        .get_partial_message(int(message_id))
                        .delete()
                    )
            done[name] = None
        if done:
            await self.store.set_messages(chat_ref(effect.chat), done)


def turn_mention(table: ShowTable) -> str | None:
    """The table's message content: a mention of the person whose turn it is (none for an AI or nobody).
    It pings only when a table is posted with that user allowed (`Delivery._repost_table`)."""
    return f"<@{int(table.turn_user)}>" if table.turn_user.isdigit() else None


def with_view(view: discord.ui.View | None) -> dict[str, Any]:
    """``send`` takes a view or none at all (an explicit None only matters to ``edit``: it clears)."""
    return {} if view is None else {"view": view}


def effect_chat(effect: Effect) -> str:
    return getattr(effect, "chat", "") or ""
