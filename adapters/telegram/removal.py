"""Old messages of ours taken away: deleted, or, when Telegram no longer lets us delete one (48 hours), their
buttons stripped. A removal is a Bot API call, not a message: it waits for the bot's overall pace only, not
the chat's (which counts messages), and never raises, since the send before it is done."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from telegram import Bot
from telegram.error import BadRequest, TelegramError

from adapters.telegram.pacing import Clock, Pacer
from adapters.telegram.render import Rendered
from bot.adapter import LRU

log = logging.getLogger("durak.telegram")

GONE = ("message to edit not found", "message can't be edited", "message_id_invalid")


class Removal:
    """Deletes and strips through the bot's pace; keeps ``sent`` (the texts last sent, by chat and message)
    true to what is left."""

    def __init__(self, bot: Bot, pacer: Pacer, clock: Clock, sent: LRU[tuple[int, int], Rendered]) -> None:
        self.bot, self.pacer, self.clock, self.sent = bot, pacer, clock, sent

    async def remove(self, chat: int, message_id: int, action: str) -> bool:
        """Delete ("d") an old message of a screen, or strip its buttons ("s"); True once done (or gone)."""
        if action == "d":
            return await self.delete(chat, message_id)
        return await self.strip(chat, message_id)

    @asynccontextmanager
    async def _paced_call(self) -> AsyncIterator[None]:
        """One call in the bot's overall pace: wait for its turn, and settle it however the call ended."""
        while (admission := await self.pacer.admit_call(started := self.clock.now())).wait > 0:
            await self.clock.sleep(admission.wait)
        try:
            yield
        finally:
            self.pacer.settle(0, admission.ticket, started, self.clock.now())

    async def delete(self, chat: int, message_id: int) -> bool:
        """Delete one of our messages; True once it is gone. One too old to delete loses its buttons."""
        try:
            async with self._paced_call():
                await self.bot.delete_message(chat, message_id)
        except BadRequest as error:
            reason = str(error).lower()
            if "can't be deleted" in reason:
                return await self.strip(chat, message_id)
            log.info("chat %s: old message %s not deleted (%s)", chat, message_id, error)
            return "not found" in reason
        except TelegramError as error:
            log.info("chat %s: old message %s not deleted (%s)", chat, message_id, error)
            return False
        self.sent.pop((chat, message_id), None)
        return True

    async def strip(self, chat: int, message_id: int) -> bool:
        """Take the buttons off one of our messages (an old hand of an earlier game); True once done."""
        try:
            async with self._paced_call():
                await self.bot.edit_message_reply_markup(chat, message_id, reply_markup=None)
        except BadRequest as error:
            reason = str(error).lower()
            log.info("chat %s: old message %s kept its buttons (%s)", chat, message_id, error)
            return "not modified" in reason or any(gone in reason for gone in GONE)
        except TelegramError as error:
            log.info("chat %s: old message %s kept its buttons (%s)", chat, message_id, error)
            return False
        sent = self.sent.get((chat, message_id))
        if sent is not None:
            self.sent[(chat, message_id)] = Rendered(sent.text)
        return True
