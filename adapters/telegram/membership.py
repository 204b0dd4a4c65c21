"""Who is in a group and who administers it, from getChatMember: one cached answer serves both questions.

Members are the statuses "creator", "administrator" and "member", and "restricted" while ``is_member`` is true
(Telegram keeps a restricted person's status after they leave); "left" and "kicked" are not. Admins are the
creator and the administrators. Answers are kept a while per (chat, person), so a flood of /settings or of
refused joins asks once: a member's answer for a minute, a non-member's (or a failed call) for ten seconds,
so someone just added to the group soon gets through. A failed call counts as neither member nor admin.
Someone the bot has just seen write or press a button in the group is a member without asking (`saw`), so
the people who play there join with no call at all.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from telegram import Bot, ChatMember, ChatMemberRestricted
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError

from adapters.telegram.memory import PLATFORM
from bot.adapter import LRU, ChatRef

log = logging.getLogger("durak.telegram")

MEMBER_KNOWN_FOR = 60.0  # seconds a member's answer is reused
NOT_MEMBER_KNOWN_FOR = 10.0  # seconds a non-member's answer (or a failed call) is reused
ADMINS = (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)
MEMBERS = (*ADMINS, ChatMemberStatus.MEMBER)


def counts_as_member(member: ChatMember) -> bool:
    if member.status in MEMBERS:
        return True
    return isinstance(member, ChatMemberRestricted) and member.is_member


class Membership:
    """Asks Telegram about a person in a chat, through the bot's own connection."""

    def __init__(self, bot: Bot, clock: Callable[[], float] = time.monotonic, size: int = 10_000) -> None:
        self.bot = bot
        self.clock = clock
        self._known: LRU[tuple[int, int], tuple[float, ChatMember | None]] = LRU(size)  # -> (until, answer)
        self._seen: LRU[tuple[int, int], float] = LRU(size)  # (chat, user) -> until when they count as in it

    def saw(self, chat_id: int, user_id: int) -> None:
        """``user_id`` wrote or pressed a button in the group ``chat_id`` just now: a member for a minute."""
        self._seen[(chat_id, user_id)] = self.clock() + MEMBER_KNOWN_FOR

    async def member(self, chat_id: int, user_id: int) -> ChatMember | None:
        """Telegram's answer for ``user_id`` in ``chat_id``, None when the call failed."""
        known = self._known.touch((chat_id, user_id))
        if known is not None and self.clock() < known[0]:
            return known[1]
        answer: ChatMember | None
        try:
            answer = await self.bot.get_chat_member(chat_id, user_id)
        except TelegramError as error:
            log.warning("getChatMember %s/%s failed: %s", chat_id, user_id, error)
            answer = None
        keep = MEMBER_KNOWN_FOR if answer is not None and counts_as_member(answer) else NOT_MEMBER_KNOWN_FOR
        self._known[(chat_id, user_id)] = (self.clock() + keep, answer)
        return answer

    async def is_member(self, chat: ChatRef, user_id: str) -> bool:
        """`bot.game.membership.MembershipCheck`: whether the person is in the chat (their own private chat
        with the bot, where practice games are, counts)."""
        if chat.platform != PLATFORM:
            return False
        if chat.chat_id == user_id:
            return True
        try:
            chat_id, user = int(chat.chat_id), int(user_id)
        except ValueError:
            return False
        seen = self._seen.touch((chat_id, user))
        if seen is not None and self.clock() < seen:
            return True
        answer = await self.member(chat_id, user)
        return answer is not None and counts_as_member(answer)

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        answer = await self.member(chat_id, user_id)
        return answer is not None and answer.status in ADMINS
