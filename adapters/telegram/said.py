"""What is said for a while (`Reply.tag`: a prompt, a reminder) and retracted (`Retract`) when it stops
being true. Where each such message went is kept with the chat's message ids (`bot.outbox.said_mark`), so
whichever process learns that it is no longer true removes it, and one still on its way removes itself."""

from __future__ import annotations

from adapters.telegram.items import Item
from adapters.telegram.memory import ChatMemory
from adapters.telegram.removal import Removal
from bot.adapter import said_mark, said_marks, unsaid_mark, unsaid_version


class SaidForAWhile:
    def __init__(self, memory: ChatMemory, removal: Removal) -> None:
        self.memory, self.removal = memory, removal

    async def unsaid(self, item: Item) -> bool:
        """Whether a message said for a while was retracted while it waited (by any process)."""
        if not item.version:
            return False
        ids = await self.memory.fresh(item.home)
        return unsaid_version(ids, item.tag, item.user_id) >= item.version

    async def said(self, item: Item, message_ids: list[int]) -> None:
        """Keep where a message said for a while went; if it was retracted while on its way, remove it now."""
        fields = {
            said_mark(item.tag, item.user_id, f"{item.chat}:{mid}"): str(item.version) for mid in message_ids
        }
        await self.memory.remember(item.home, dict(fields))
        if item.version and await self.unsaid(item):
            for name, message_id in zip(fields, message_ids, strict=True):
                await self.removal.delete(item.chat, message_id)
                await self.memory.remember(item.home, {name: None})

    async def retract(self, item: Item) -> None:
        """What was said under the item's tag for its person before its version is no longer true: said
        so first (a message still on its way elsewhere then removes itself, `said`), then each one said is
        deleted."""
        ids = self.memory.ids.get(item.home) or {}
        if item.version > unsaid_version(ids, item.tag, item.user_id):
            await self.memory.remember(item.home, {unsaid_mark(item.tag, item.user_id): str(item.version)})
        ids = await self.memory.fresh(item.home)
        for name, (where, version) in said_marks(ids, item.tag, item.user_id).items():
            chat, _, message_id = where.partition(":")
            if item.version and version >= item.version or not message_id.isdigit():
                continue  # said again since, and true
            await self.removal.delete(int(chat), int(message_id))
            await self.memory.remember(item.home, {name: None})
