"""Who may take a seat from outside the chat (docs/reliability.md §12, docs/webapp.md).

A press made in the chat itself comes from someone the platform let see it. A press from the web app's page
may come from anyone holding a forwarded "Open table" link, and a seat would rate them in a chat they are not
in. So an adapter hands the service its platform's `MembershipCheck` with such a press (Telegram's
getChatMember, `adapters.telegram.membership`; an Activity's instance members), and the service refuses a
press from outside the chat that would seat a non-member before deciding anything (`GameService.handle`);
watching needs no seat and stays open to anyone with the link.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.buttons import Button, Join, PickTeam
from bot.effects import Alert, Effect
from bot.i18n import translator
from bot.inputs import User
from storage import ChatRef

MembershipCheck = Callable[[ChatRef, str], Awaitable[bool]]  # (chat, user id) -> the user is in the chat


def takes_a_seat(button: Button) -> bool:
    """A lobby button that seats its presser: Join, or a team's button (which joins first if need be)."""
    return isinstance(button, Join | PickTeam)


async def refused_join(
    check: MembershipCheck | None, chat: ChatRef, user: User, button: Button
) -> list[Effect]:
    """The refusal of a press from the page that would seat a non-member of ``chat``, or [] to let the press
    through (no check given, or a press that seats nobody). The page goes on showing the table to watch."""
    if check is None or not takes_a_seat(button) or await check(chat, user.id):
        return []
    text = translator(user.lang)._("Only members of this chat can join its games.")
    return [Alert(user.id, text, show_alert=True)]
