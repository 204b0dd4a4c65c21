"""The "Open table" button: the chat's game in the web app (a Telegram Mini App), beside the chat's buttons.

Only chats whose platform has the app configured get it (`Context.opens_app`). Its payload names the chat
and the game, with step 0 and the "My hand" code, so it never changes during a game (a hand that looks the
same is not edited again) and, on a platform that could only press it, shows the presser's hand.
"""

from __future__ import annotations

from bot.buttons import OpenHand
from bot.effects import Button
from bot.i18n import Translator
from bot.payloads import Payload


def open_app_button(chat_id: str, game_id: str, tr: Translator) -> Button:
    # TRANSLATORS: button under the table and the hand: opens the table drawn as cards in the Telegram app
    return Button(tr._("Open table"), Payload(chat_id, game_id, 0, OpenHand()).encode(), opens_app=True)
