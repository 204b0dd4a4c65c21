"""What the delivery queue holds: one Telegram-side job per effect, and the rule for merging them.

The service speaks of its own chat ids ("home": the group whose game it is); an item also says which
Telegram chat it goes to (a group, or a player's private chat) and which stored message it replaces.

Each item also has a lane, its rank in the chat's queue (`lanes.py`): the game's result and the table that
shows the end first, then tables, hands, the game's own notices and the answers to a person's own press,
then informational replies last, and the removal of what is no longer true (`Retract`) with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from adapters.telegram.pacing import ACTING, SCREENS, WAITING
from adapters.telegram.render import Rendered
from bot.adapter import Effect, Message, Notice, Reply, Retract, ShowHand, ShowTable

TABLE, HAND, POST, RETRACT = "table", "hand", "post", "retract"
GAME_THREAD = -1  # "post in the topic the game lives in"
RESULT, SCREEN, INFO = 0, 1, 2  # lanes: the game's end; screens and game notices; replies (/rules, refusals)


@dataclass(frozen=True)
class Item:
    kind: str  # TABLE (the group's one table message), HAND (a player's one hand message), POST, RETRACT
    chat: int  # the Telegram chat it goes to
    home: str  # the service's chat id: whose stored message ids (and game) this belongs to
    message: Message | Rendered
    game_id: str = ""
    new_message: bool = False
    user_id: str = ""  # HAND: whose hand
    thread: int | None = GAME_THREAD  # POST in a group: a forum topic, None for none, or the game's topic
    private: bool = False  # POST to a player's private chat: a closed chat is not worth a group message...
    asked_for: bool = False  # ...unless they asked for it (/me): then the group says how to open that chat
    lane: int = SCREEN
    version: int = 0  # TABLE, HAND: the chat version it shows, recorded once delivered (bot/outbox.py)
    announce: bool = False  # HAND: their turn came after a wait: a new message (it notifies), the old deleted
    acting: bool = False  # HAND: of the person whose turn it is (the table given with it says so)
    in_play: bool = False  # TABLE, HAND: drawn after a move of a running game (`ShowTable.in_play`)
    queued_at: float = 0.0  # when this screen's oldest change still waiting was queued (`Delivery.enqueue`)
    tag: str = ""  # POST: said for a while (`Reply.tag`), under this tag and ``user_id``; RETRACT: what goes
    answer: bool = False  # POST: the answer to the person's own press or command (`Reply.answer`)

    @property
    def rank(self) -> int:
        """Its importance across chats when the token's budget runs short (`pacing.Ask.rank`): with the
        acting player's hand, what people wait for to act (a lobby, the deal, the end, the answer to their
        own press); then the running games' tables (the spectators' view) and notices; then the rest."""
        if self.kind == HAND:
            return ACTING if self.acting or self.announce else WAITING
        if self.answer or (self.kind == TABLE and not self.in_play):
            return ACTING
        return WAITING if self.lane == INFO else SCREENS

    @property
    def spaced(self) -> bool:
        """A running game's table edit: at most one in `Limits.table_every` (the end and a new lobby at once)."""
        return self.kind == TABLE and self.in_play and self.lane == SCREEN and not self.new_message

    @property
    def waits_for_turn(self) -> bool:
        """A waiting player's hand changed by someone else's move (drawn cards, out, trumps changed): it may
        wait a little for their next change, which is often their turn, and go as one edit with it."""
        return self.kind == HAND and self.in_play and self.rank == WAITING and not self.new_message

    @property
    def key(self) -> str:
        """The name of the message id in the chat's stored ids."""
        return "table" if self.kind == TABLE else f"hand:{self.user_id}"

    def moved(self, old: str, new: str) -> Item:
        """The same job after the group ``old`` became the supergroup ``new``."""
        if self.home != old:
            return self
        chat = int(new) if self.chat == int(old) else self.chat
        return replace(self, home=new, chat=chat)


def items_for(effects: Sequence[Effect], reply_thread: int | None = GAME_THREAD) -> list[Item]:
    """Queue jobs for the effects in order; alerts are the handlers' business (answerCallbackQuery). A table
    given with the game's result is the one that shows the end: it goes in the result's lane."""
    ended = {effect.chat for effect in effects if isinstance(effect, Notice) and effect.final}
    turns = {(effect.chat, effect.turn_user) for effect in effects if isinstance(effect, ShowTable)}
    items: list[Item] = []
    for effect in effects:
        if isinstance(effect, ShowTable):
            lane = RESULT if effect.chat in ended else SCREEN
            items.append(
                Item(
                    TABLE,
                    int(effect.chat),
                    effect.chat,
                    effect.message,
                    effect.game_id,
                    effect.new_message,
                    lane=lane,
                    version=effect.version,
                    in_play=effect.in_play,
                )
            )
        elif isinstance(effect, ShowHand):
            items.append(
                Item(
                    HAND,
                    int(effect.user_id),
                    effect.chat,
                    effect.message,
                    effect.game_id,
                    effect.new_message,
                    user_id=effect.user_id,
                    version=effect.version,
                    announce=effect.announce,
                    acting=(effect.chat, effect.user_id) in turns,
                    in_play=effect.in_play,
                )
            )
        elif isinstance(effect, Notice):
            lane = RESULT if effect.final else SCREEN
            items.append(Item(POST, int(effect.chat), effect.chat, effect.message, lane=lane))
        elif isinstance(effect, Reply):
            lane = SCREEN if effect.answer else INFO  # an answer keeps its place among the screens
            if effect.private and effect.user_id:
                items.append(
                    Item(
                        POST,
                        int(effect.user_id),
                        effect.chat,
                        effect.message,
                        private=True,
                        asked_for=effect.asked_for,
                        lane=lane,
                        answer=effect.answer,
                        tag=effect.tag,
                        user_id=effect.user_id,
                        version=effect.version,
                    )
                )
            else:
                items.append(
                    Item(
                        POST,
                        int(effect.chat),
                        effect.chat,
                        effect.message,
                        thread=reply_thread,
                        lane=lane,
                        answer=effect.answer,
                        tag=effect.tag,
                        user_id=effect.user_id,
                        version=effect.version,
                    )
                )
        elif isinstance(effect, Retract):
            to = int(effect.user_id) if effect.private else int(effect.chat)
            nothing = Rendered("")
            items.append(
                Item(RETRACT, to, effect.chat, nothing, user_id=effect.user_id, tag=effect.tag,
                     version=effect.version, lane=INFO)
            )  # fmt: skip
    return items


def merged(queued: Item, newer: Item) -> Item | None:
    """Two updates of one table (or one hand) in a row: only the newer is worth sending. It still opens a
    new message if either asked for one (a new lobby, then its first join), and still announces a turn;
    whether it is the acting player's is the newer's to say; it has waited since the older was queued. A
    hand of another game is never merged: a game's last hand takes its buttons away before the next game's
    first hand comes as a new message."""
    if queued.kind != newer.kind or queued.kind in (POST, RETRACT):
        return None
    if (queued.chat, queued.home, queued.user_id) != (newer.chat, newer.home, newer.user_id):
        return None
    if queued.kind == HAND and queued.game_id != newer.game_id:
        return None
    return replace(
        newer,
        new_message=queued.new_message or newer.new_message,
        announce=queued.announce or newer.announce,
        queued_at=queued.queued_at or newer.queued_at,
    )
