"""What the bot says in a group when it cannot write to someone privately: Telegram lets a bot write to a
person only once they opened its private chat, so it asks them to, by name, with a button that opens it."""

from __future__ import annotations

import html
import logging
from collections.abc import Awaitable, Callable

from telegram.error import Forbidden

from adapters.telegram.deeplink import deep_link
from adapters.telegram.items import HAND, INFO, POST, Item
from adapters.telegram.memory import ChatMemory
from adapters.telegram.render import URL, Rendered
from bot.adapter import OPEN_PRIVATE, OpenHand, payloads, translator

log = logging.getLogger("durak.telegram")

REMEMBERED_ASKS = 20_000  # (group, game, person) asked to open the private chat, before forgetting them


def open_private(memory: ChatMemory, bot_username: str, group: str, user_id: str) -> Rendered:
    """ "<name>, I can answer you only in a private chat with me": what they asked for (/me) is for their
    eyes only."""
    _ = translator(memory.langs.get(group) or memory.user_langs.get(user_id))._
    name = memory.names.get(user_id) or _("player")
    mention = f'<a href="tg://user?id={int(user_id)}">{html.escape(name, quote=False)}</a>'
    # TRANSLATORS: in the group, to someone who typed /me but never opened the bot's private chat
    text = _(
        "{name}, I can answer you only in a private chat with me: open it with the button, then ask again."
    )
    text = html.escape(text).format(name=mention)
    button = (_("Open the private chat"), URL, f"https://t.me/{bot_username}")
    return Rendered(text, ((button,),))


def start_me(memory: ChatMemory, bot_username: str, item: Item) -> Rendered:
    """ "<name>, open a private chat with me": the player's cards cannot be sent until they do."""
    _ = translator(memory.langs.get(item.home) or memory.user_langs.get(item.user_id))._
    name = memory.names.get(item.user_id) or _("player")
    mention = f'<a href="tg://user?id={int(item.user_id)}">{html.escape(name, quote=False)}</a>'
    text = html.escape(
        _("{name}, I cannot send you your cards until you open a private chat with me: tap the button.")
    ).format(name=mention)
    payload = payloads.Payload(item.home, item.game_id, 0, OpenHand()).encode()
    button = (_("Show my cards"), URL, deep_link(bot_username, payload))
    return Rendered(text, ((button,),))


class Refusals:
    """A private chat that refuses the bot's message (403: the person never opened it, or blocked the bot):
    the service is told (``private_closed``: the lobby marks the seat, a game holds their clock) and the
    group is asked, once per game and person, to have them open it."""

    def __init__(
        self,
        memory: ChatMemory,
        bot_username: Callable[[], str],
        enqueue: Callable[[Item], None],
        private_closed: Callable[[str, str], Awaitable[None]] | None = None,
    ) -> None:
        self.memory, self.bot_username, self.enqueue = memory, bot_username, enqueue
        self.private_closed = private_closed
        self.asked: set[tuple[str, str, str]] = set()  # (group, game, user) told to start the bot

    async def forbidden(self, item: Item, error: Forbidden) -> None:
        if item.chat < 0:
            log.warning("group %s refuses messages (%s): dropped", item.chat, error)
            return
        group = item.home if item.home != str(item.chat) and int(item.home) < 0 else ""
        if item.kind != HAND:
            log.info("private chat %s closed (%s): message dropped", item.chat, error)
            if group and self.private_closed is not None:
                # a reply to a command typed in the group (/join): the lobby marks the seat (once: the
                # service changes nothing for a seat already marked)
                await self.private_closed(group, str(item.chat))
            if group and item.asked_for:
                log.info("user %s has not started the bot: telling group %s", item.chat, group)
                asked = open_private(self.memory, self.bot_username(), group, str(item.chat))
                self.enqueue(Item(POST, int(group), group, asked, lane=INFO))
            return
        key = (item.home, item.game_id, item.user_id)
        if key in self.asked:
            return
        if len(self.asked) > REMEMBERED_ASKS:
            self.asked.clear()  # a bounded memory: at worst someone is asked twice
        self.asked.add(key)
        if self.private_closed is not None:  # the game holds their clock (`GameService.private_chat`)
            await self.private_closed(item.home, item.user_id)
        log.info("user %s has not started the bot: asking in group %s", item.user_id, item.home)
        asking = start_me(self.memory, self.bot_username(), item)
        self.enqueue(
            Item(POST, int(item.home), item.home, asking, tag=OPEN_PRIVATE, user_id=item.user_id,
                 version=item.version)
        )  # fmt: skip
