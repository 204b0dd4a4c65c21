"""Updates in: commands, button presses, deep links and group migrations, each mapped to one service input.

Handlers are thin. They build a `Command` or a `Press`, hand it to the service, answer the button press
with the alert the service chose (always, and within a second), and queue the other effects for delivery.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace

from telegram import CallbackQuery, Chat, Message, Update
from telegram import User as TelegramUser
from telegram.constants import ChatType
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    TypeHandler,
    filters,
)

from adapters.telegram.deeplink import decode_start
from adapters.telegram.delivery import Delivery
from adapters.telegram.items import GAME_THREAD
from adapters.telegram.membership import Membership
from adapters.telegram.memory import PLATFORM, ChatMemory, ref
from bot.adapter import (
    NEWGAME,
    SENDING,
    TABLE_SHOWN,
    Alert,
    Command,
    Effect,
    GameService,
    MessageMemory,
    Place,
    Press,
    Reply,
    ShowHand,
    ShowTable,
    StoreUnavailable,
    User,
    Who,
    line,
    message,
    names_with,
    offered_in,
    payloads,
)

log = logging.getLogger("durak.telegram")

COMMANDS = tuple(spec.name for spec in offered_in(Place.TELEGRAM))  # the names the bot listens to
ADMIN_COMMANDS = names_with(Who.ADMIN)  # only these ask Telegram who administers the chat
OPENS_LOBBY = NEWGAME.names
ANSWER_WITHIN = 0.6  # seconds: past this the press is answered empty (the spinner stops) and the move goes on
MAX_ALERT = 200


def tg_user(user: TelegramUser) -> User:
    return User(str(user.id), user.full_name, user.language_code or "en")


def topic_of(msg: Message | None) -> int | None:
    """The forum topic a message was posted in; None outside forums and in the General topic."""
    if msg is None or not msg.is_topic_message:
        return None
    return msg.message_thread_id


class Handlers:
    def __init__(
        self,
        service: GameService,
        store: MessageMemory,
        memory: ChatMemory,
        delivery: Delivery,
        membership: Membership,
    ) -> None:
        self.service = service
        self.store = store
        self.memory = memory
        self.delivery = delivery
        self.membership = membership  # who administers a group (admin commands), who may join its games
        self._migrations: dict[str, asyncio.Task[None]] = {}

    def register(self, application: Application) -> None:  # type: ignore[type-arg]
        only_new = filters.UpdateType.MESSAGE
        application.add_handler(TypeHandler(Update, self.on_any_update), group=-1)  # then the others
        application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, self.on_migrate))
        application.add_handler(CommandHandler(list(COMMANDS), self.on_command, filters=only_new))
        application.add_handler(CallbackQueryHandler(self.on_press))
        application.add_error_handler(self.on_error)

    async def on_any_update(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Every message the bot receives tells the newest message id of its chat (`ChatMemory.newer_than`);
        every update from a group, that its sender is in it (`Membership.saw`)."""
        msg = update.message or update.edited_message
        if msg is not None:
            self.memory.saw_message(msg.chat.id, msg.message_id)
        sender, chat = update.effective_user, update.effective_chat
        if sender is not None and chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP):
            self.membership.saw(chat.id, sender.id)  # they write or press in the group: they are in it

    # ---- commands ------------------------------------------------------------------------------------

    async def on_command(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        msg, chat, sender = update.effective_message, update.effective_chat, update.effective_user
        if msg is None or chat is None or sender is None or not msg.text:
            return
        user = self.saw(sender)
        name = msg.text.split()[0][1:].split("@")[0].lower()
        words = " ".join(context.args or [])
        private = chat.type == ChatType.PRIVATE
        if private and name == "start" and context.args:
            payload = decode_start(context.args[0])
            if payload is not None:
                await self.deep_link(user, payload)
                return
        is_admin = not private and name in ADMIN_COMMANDS and await self.is_admin(chat, sender, msg)
        command = Command(PLATFORM, str(chat.id), user, name, words, chat.title or "", is_admin, private)
        effects = await self.service.handle(command)
        thread = topic_of(msg)
        if name in OPENS_LOBBY and any(isinstance(e, ShowTable) and e.new_message for e in effects):
            await self.memory.set_thread(str(chat.id), thread)
        home = str(chat.id)  # a closed private chat tells the group's game about it (`Delivery._forbidden`)
        self.delivery.submit(self.alerts_to_private(effects, user, home), reply_thread=thread)

    async def is_admin(self, chat: Chat, sender: TelegramUser, msg: Message) -> bool:
        if msg.sender_chat is not None and msg.sender_chat.id == chat.id:
            return True  # an anonymous admin writes as the group itself
        return await self.membership.is_admin(chat.id, sender.id)

    @staticmethod
    def alerts_to_private(effects: list[Effect], user: User, home: str = "") -> list[Effect]:
        """Without a button press there is nothing to answer: an alert's text goes to the user's private
        chat instead, never to the group. ``home``: the group the command came from, told when that private
        chat turns out closed."""
        out: list[Effect] = []
        for effect in effects:
            if isinstance(effect, Alert):
                if effect.text:  # the answer to their own press or command: in order with the screens
                    text = message([line(effect.text)])
                    out.append(Reply(home or user.id, text, private=True, user_id=user.id, answer=True))
            else:
                out.append(effect)
        return out

    async def deep_link(self, user: User, payload: str) -> None:
        """``/start <payload>``: the user followed a Join or "My hand" link; it is their button press.
        The hand is sent as a new message, since the private chat now ends with their /start, and the old
        hand deleted (as for an announced turn), so the chat keeps one hand, at the bottom. The private
        chat is open now, which the game hears with the press (``through_private``). A link can be
        forwarded out of its group, so a Join through it seats only the group's members
        (`bot.game.membership`)."""
        press = Press(PLATFORM, user, self.current_payload(payload), through_private=True)
        effects = await self.service.handle(press, membership=self.membership.is_member)
        effects = [
            replace(e, announce=True) if isinstance(e, ShowHand) and e.user_id == user.id else e
            for e in effects
        ]
        self.delivery.submit(self.alerts_to_private(effects, user))

    # ---- button presses ------------------------------------------------------------------------------

    async def on_press(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        if query is None:
            return
        user = self.saw(query.from_user)
        private = isinstance(query.message, Message) and query.message.chat.type == ChatType.PRIVATE
        press = Press(PLATFORM, user, self.current_payload(query.data or ""), through_private=private)
        handling = asyncio.ensure_future(self.service.handle(press))
        done, _ = await asyncio.wait({handling}, timeout=ANSWER_WITHIN)
        if not done:
            await self.answer(query, None)  # the spinner must stop; the service's answer comes late
        try:
            effects = await handling
        except Exception:
            log.exception("press %r by %s failed", press.payload, user.id)
            effects = []
        others = [e for e in effects if not isinstance(e, Alert)]
        thread = topic_of(query.message) if isinstance(query.message, Message) else GAME_THREAD
        self.delivery.submit(others, reply_thread=thread)  # queued first: the next actor need not wait
        if done:  # for this answer's round trip
            alert = next((e for e in effects if isinstance(e, Alert) and e.user_id in (user.id, "")), None)
            await self.answer(query, alert)

    @staticmethod
    async def answer(query: CallbackQuery, alert: Alert | None) -> None:
        text = (alert.text if alert else "")[:MAX_ALERT] or None
        try:
            await query.answer(text, show_alert=bool(alert and alert.show_alert and text))
        except TelegramError as error:
            log.warning("answerCallbackQuery %s failed: %s", query.id, error)

    def current_payload(self, data: str) -> str:
        """A button drawn before its group became a supergroup names the old chat: name the new one."""
        parsed = payloads.parse(data)
        if parsed is None or parsed.chat_id not in self.memory.migrated:
            return data
        chat = self.memory.current(parsed.chat_id)
        return replace(parsed, chat_id=chat).encode()

    # ---- migration -----------------------------------------------------------------------------------

    async def on_migrate(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        msg = update.effective_message
        if msg is None:
            return
        if msg.migrate_to_chat_id:
            await self.migrate(str(msg.chat.id), str(msg.migrate_to_chat_id))
        elif msg.migrate_from_chat_id:
            await self.migrate(str(msg.migrate_from_chat_id), str(msg.chat.id))

    async def migrate(self, old: str, new: str) -> None:
        """Once per group, however many times Telegram or a failed send tells us."""
        task = self._migrations.get(old)
        if task is None:
            task = self._migrations[old] = asyncio.ensure_future(self._migrate(old, new))
        await asyncio.shield(task)

    async def _migrate(self, old: str, new: str) -> None:
        try:
            await self.store.migrate_chat(ref(old), ref(new))
        except StoreUnavailable as error:
            log.error("group %s became %s but the store is unavailable: %s", old, new, error)
        log.info("group %s became supergroup %s: the game moves with it", old, new)
        self.memory.migrated[old] = new
        self.memory.forget(old)
        self.memory.forget(new)
        # the table message stays behind in the old group; the next table update posts a new one
        await self.memory.remember(
            new, {"table": None, "thread": None, TABLE_SHOWN: None, SENDING + "table": None}
        )
        self.delivery.moved(old, new)

    # ---- misc ----------------------------------------------------------------------------------------

    def saw(self, sender: TelegramUser) -> User:
        user = tg_user(sender)
        self.memory.saw_user(user.id, user.name, user.lang)
        return user

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        log.error("error while handling an update", exc_info=context.error)
