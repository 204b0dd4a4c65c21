"""One chat's waiting items, in three lanes: what a group sees first when its ~20 messages a minute run short.

The worker always sends from the first lane that has something: the game's result and the table that
shows the end (`RESULT`), then tables, hands and the game's own notices (`SCREEN`), then informational
replies (`INFO`: /rules, /help, /stats, refusals). Within a lane the order is kept, and a table or hand
update merges into the same screen's update waiting right before it, as it always did. A result's table
replaces the same table still waiting in the screens' lane (it is newer).

When the chat is behind (it could not send what waits and this reply now and still keep a spare send),
replies are worth little: one equal to a reply already waiting is merged into it (sixty /rules, one
answer), and past `MAX_WAITING_REPLIES` the oldest waiting reply is dropped. Their pace is the delivery's business: they leave the chat a spare send (`pacing.py`).

The answer to a person's own press or command said in their private chat (`Item.answer`: "You joined.")
keeps its place among the screens, so it comes before the hand the next press deals, and is merged into an
equal one waiting when the chat is behind. The removal of a message no longer true (`RETRACT`) waits with the
replies and is never dropped; a message it removes that still waits is taken out of the queue at once
(`withdraw`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from adapters.telegram.items import INFO, POST, RESULT, RETRACT, SCREEN, Item, merged

MAX_WAITING_REPLIES = 3  # per chat; a group that is behind does not need more answers than this


class Lanes:
    def __init__(self) -> None:
        self.lanes: tuple[deque[Item], deque[Item], deque[Item]] = (deque(), deque(), deque())
        self.dropped = 0  # replies merged or dropped since the queue was made

    def __len__(self) -> int:
        return len(self.lanes[RESULT]) + len(self.lanes[SCREEN]) + len(self.lanes[INFO])

    def __iter__(self) -> Iterator[Item]:
        for lane in self.lanes:
            yield from lane

    def head(self) -> Item:
        """The item to send next (the queue must not be empty)."""
        return next(lane[0] for lane in self.lanes if lane)

    def pop_head(self) -> Item:
        return next(lane for lane in self.lanes if lane).popleft()

    def add(self, item: Item, behind: bool = False) -> None:
        """Queue ``item``; ``behind``: the chat cannot send it soon, so a reply may be merged or dropped."""
        lane = self.lanes[item.lane]
        if item.lane == INFO:
            if behind and item in lane:
                self.dropped += 1  # the same answer is already waiting
                return
            lane.append(item)
            while behind and sum(queued.kind != RETRACT for queued in lane) > MAX_WAITING_REPLIES:
                lane.remove(next(queued for queued in lane if queued.kind != RETRACT))
                self.dropped += 1
            return
        if item.answer and behind and item in lane:
            self.dropped += 1  # the same answer is already waiting (a flood of refused commands)
            return
        if item.lane == RESULT and item.kind != POST:
            item = self._overtake(item)
        if lane and (both := merged(lane[-1], item)) is not None:
            lane[-1] = both
        else:
            lane.append(item)

    def _overtake(self, item: Item) -> Item:
        """Remove the same screen's older update from the screens' lane (it would undo the end)."""
        screens = self.lanes[SCREEN]
        for queued in [queued for queued in screens if merged(queued, item) is not None]:
            screens.remove(queued)
            item = merged(queued, item) or item
        return item

    def put_back(self, item: Item) -> None:
        """An item that could not be sent goes back to the head of its lane (merged with a newer one)."""
        lane = self.lanes[item.lane]
        lane.appendleft(item)
        if len(lane) > 1 and (both := merged(item, lane[1])) is not None:
            lane.popleft()
            lane[0] = both

    def still_new(self, overtaken: Item) -> None:
        """A screen that asked for a new message was overtaken by its own next change: if that is still
        waiting, it opens the new message instead."""
        for lane in self.lanes:
            for index in range(len(lane) - 1, -1, -1):
                if (both := merged(overtaken, lane[index])) is not None:
                    lane[index] = both
                    return

    def withdraw(self, retract: Item) -> int:
        """Take out the messages ``retract`` removes that still wait (said under its tag for its person in its
        home chat, before its version): they are never sent. How many."""
        gone = 0
        for lane in self.lanes:
            for queued in [queued for queued in lane if said_before(queued, retract)]:
                lane.remove(queued)
                gone += 1
        return gone

    def drain(self) -> list[Item]:
        """Everything waiting, in sending order; the lanes are left empty."""
        waiting = list(self)
        self.clear()
        return waiting

    def clear(self) -> None:
        for lane in self.lanes:
            lane.clear()


def said_before(item: Item, retract: Item) -> bool:
    """``item`` is a message that ``retract`` removes."""
    return (
        item.kind == POST
        and bool(item.tag)
        and (item.home, item.tag, item.user_id) == (retract.home, retract.tag, retract.user_id)
        and (not retract.version or item.version < retract.version)
    )
