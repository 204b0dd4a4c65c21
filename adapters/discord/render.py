"""The neutral `Message` as a Discord embed plus rows of buttons.

The first line becomes the embed's title and the rest its description. Every span is escaped with
`discord.utils.escape_markdown`, so a player called ``*Ann*`` or ``__x__`` is shown as typed and can never
format, hide or fake part of the table. Buttons are laid out in Discord's limits: at most 5 per row and
5 rows; a longer neutral row is split, and when there are still too many rows they are packed by fives.
A hand with more cards to play than that (a big hand after taking) gets its cards as select menus of up to
25 options each, so every legal move stays reachable; the last row (Take, Pass...) stays buttons.
"""

from __future__ import annotations

from dataclasses import dataclass

import discord

from bot.adapter import Button, Line, Message, Span, buttons, payloads
from core import Action

TITLE_LIMIT = 256
DESCRIPTION_LIMIT = 4096
LABEL_LIMIT = 80
ROW_WIDTH = 5
MAX_ROWS = 5
SELECT_OPTIONS = 25
EMBED_COLOUR = discord.Colour.dark_green()


def span_markdown(span: Span) -> str:
    text = discord.utils.escape_markdown(span.text)
    if not text.strip():
        return span.text
    if span.mono:
        return f"`{span.text.replace('`', 'ˋ')}`"
    return f"**{text}**" if span.bold else text


def line_markdown(line: Line) -> str:
    return "".join(span_markdown(span) for span in line)


def title_text(line: Line) -> str:
    """Titles are bold already; their spans are escaped but not starred."""
    return "".join(discord.utils.escape_markdown(span.text) for span in line)


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def to_embed(message: Message, extra_lines: tuple[str, ...] = ()) -> discord.Embed:
    """``extra_lines`` are the adapter's own markdown (already safe), appended after a blank line."""
    lines = list(message.lines)
    title = clip(title_text(lines[0]), TITLE_LIMIT) if lines else ""
    body = [line_markdown(line) for line in lines[1:]]
    if extra_lines:
        body += ["", *extra_lines]
    description = clip("\n".join(body).strip("\n"), DESCRIPTION_LIMIT)
    return discord.Embed(title=title or None, description=description or None, colour=EMBED_COLOUR)


@dataclass(frozen=True)
class ButtonSpec:
    """One button as Discord will show it: a service payload, an adapter custom_id, or a link."""

    label: str
    payload: str = ""  # for the service: sent back as custom_id "d:" + payload
    custom_id: str = ""  # the adapter's own buttons (DM toggles); used as is
    url: str = ""
    style: discord.ButtonStyle = discord.ButtonStyle.secondary
    launches: bool = False  # "Open table": the press launches the Activity (custom_id "a:" + payload)


STYLE_BY_BUTTON: dict[buttons.Button, discord.ButtonStyle] = {
    buttons.OpenHand(): discord.ButtonStyle.primary,
    buttons.Join(): discord.ButtonStyle.success,
    buttons.Start(): discord.ButtonStyle.success,
    buttons.Rematch(): discord.ButtonStyle.success,
    buttons.Cancel(): discord.ButtonStyle.danger,
    buttons.Move(Action.parse("t")): discord.ButtonStyle.danger,  # take
    buttons.Move(Action.parse("p")): discord.ButtonStyle.primary,  # pass
}


def spec_for(button: Button) -> ButtonSpec:
    label = clip(button.label, LABEL_LIMIT) or "·"
    if button.url:
        return ButtonSpec(label, url=button.url, style=discord.ButtonStyle.link)
    if button.opens_app:
        return ButtonSpec(label, payload=button.payload, style=discord.ButtonStyle.primary, launches=True)
    parsed = payloads.parse(button.payload)
    style = (
        STYLE_BY_BUTTON.get(parsed.button, discord.ButtonStyle.secondary)
        if parsed
        else discord.ButtonStyle.secondary
    )
    return ButtonSpec(label, payload=button.payload, style=style)


@dataclass(frozen=True)
class SelectSpec:
    """A select menu standing in for a row group of card buttons: (label, payload) options."""

    options: tuple[tuple[str, str], ...]
    placeholder: str
    index: int


Row = list[ButtonSpec] | SelectSpec


def layout(message: Message, extra: tuple[ButtonSpec, ...] = (), placeholder: str = "…") -> list[Row]:
    """Rows within Discord's limits. ``extra`` (the adapter's own buttons) go last and are dropped first
    when there is no room; of the message's buttons, the last row (Take, Pass...) is kept whole, and the
    rest is packed by fives or, when even that is too many, offered in select menus."""
    rows: list[Row] = [
        [spec_for(b) for b in row[start : start + ROW_WIDTH]]
        for row in message.buttons
        for start in range(0, len(row), ROW_WIDTH)
        if row
    ]
    if extra and len(rows) < MAX_ROWS:
        rows.append(list(extra))
    if len(rows) <= MAX_ROWS:
        return rows
    last = rows[-1]
    rest = [spec for row in rows[:-1] if isinstance(row, list) for spec in row]
    if len(rest) <= (MAX_ROWS - 1) * ROW_WIDTH:
        return [*(rest[i : i + ROW_WIDTH] for i in range(0, len(rest), ROW_WIDTH)), last]
    choices = [(spec.label, spec.payload) for spec in rest if spec.payload]
    chunks = [choices[i : i + SELECT_OPTIONS] for i in range(0, len(choices), SELECT_OPTIONS)]
    count = min(len(chunks), MAX_ROWS - 1)
    selects: list[Row] = [
        SelectSpec(tuple(chunk), f"{placeholder} ({n + 1}/{count})" if count > 1 else placeholder, n)
        for n, chunk in enumerate(chunks[:count])
    ]
    return [*selects, last]
