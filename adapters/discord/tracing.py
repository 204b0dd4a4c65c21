"""Count every Discord REST call in the Prometheus metrics (``METRICS=on``) through discord.py's documented
hook: ``Client(http_trace=aiohttp.TraceConfig)``, which sees every request of the client's HTTP session,
interaction callbacks and follow-ups included, and each retry after a 429 on its own.

The label is the HTTP verb and the path with ids and tokens replaced (``PATCH channels/{id}/messages/{id}``),
so there are a few dozen label values, not one per message. Requests outside the REST API (the gateway's
websocket, CDN) are not counted.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import aiohttp
from yarl import URL

from bot.adapter import DISCORD as PLATFORM
from bot.adapter import Metrics

API_PREFIX = re.compile(r"^/api/v\d+/")
TOKEN_AFTER = ("interactions", "webhooks")  # /interactions/{id}/{token}/..., /webhooks/{id}/{token}/...


def route_of(method: str, url: URL) -> str | None:
    """``PATCH /api/v10/channels/123/messages/456`` -> ``PATCH channels/{id}/messages/{id}``; None outside
    the REST API."""
    path = API_PREFIX.sub("", url.path, count=1)
    if path == url.path:
        return None
    parts = path.strip("/").split("/")
    for index, part in enumerate(parts):
        if part.isdigit():
            token_follows = index >= 1 and parts[index - 1] in TOKEN_AFTER
            parts[index] = "{id}"
            if token_follows and index + 1 < len(parts):
                parts[index + 1] = "{token}"
        elif index >= 1 and parts[index - 1] == "reactions":
            parts[index] = "{emoji}"
    return f"{method.upper()} {'/'.join(parts)}"


def api_call_trace(metrics: Metrics) -> aiohttp.TraceConfig:
    """A trace config for ``discord.Client(http_trace=...)`` that counts each REST call on ``metrics``."""

    async def request_end(
        session: aiohttp.ClientSession, context: SimpleNamespace, params: aiohttp.TraceRequestEndParams
    ) -> None:
        route = route_of(params.method, params.url)
        if route is not None:
            metrics.api_call(PLATFORM, route, params.response.status)

    async def request_failed(
        session: aiohttp.ClientSession, context: SimpleNamespace, params: aiohttp.TraceRequestExceptionParams
    ) -> None:
        route = route_of(params.method, params.url)
        if route is not None:
            metrics.api_call(PLATFORM, route, "error")

    trace = aiohttp.TraceConfig()
    trace.on_request_end.append(request_end)
    trace.on_request_exception.append(request_failed)
    return trace
