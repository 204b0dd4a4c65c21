"""A local fake of the Telegram Bot API (aiohttp) that the real python-telegram-bot client talks to.

`FakeTelegram` is both the server (``/bot<token>/<method>``, answers ``{"ok": true, "result": ...}`` or
Telegram's error bodies) and the test's controller: simulated users send messages and press buttons, the
updates reach the bot by long polling or by POSTs to its webhook, and the test inspects what every chat saw.
Point PTB at it with ``ApplicationBuilder().base_url(fake.bot_base_url).base_file_url(fake.file_base_url)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from aiohttp import web

from tests.fakes.telegram_methods import API, RateLimits, TelegramMethods, api, param_bool, param_int
from tests.fakes.telegram_model import (
    JSON,
    ApiError,
    Clock,
    FakeChat,
    FakeUser,
    StoredMessage,
    bad_request,
    button_labels,
    max_in_window,
)
from tests.fakes.telegram_user_side import TelegramUserSide

JSON_FIELDS = ("reply_markup", "commands", "scope", "allowed_updates", "entities", "link_preview_options",
               "reply_parameters")  # fmt: skip
SECRET_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{1,256}")
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
_REGISTERED = object()


@dataclass
class CallRecord:
    at: float  # virtual seconds
    method: str
    params: JSON
    status: int
    description: str = ""


class FakeTelegram(TelegramUserSide, TelegramMethods):
    """The fake Bot API server and its controller. Limits and the clock may be changed before use."""

    def __init__(
        self,
        token: str = "123456:TEST-fake-token",
        bot_username: str = "durak_test_bot",
        bot_name: str = "Durak",
        clock: Clock | None = None,
        limits: RateLimits | None = None,
    ) -> None:
        self.token = token
        self.bot_id = int(token.split(":")[0])
        self.bot_username = bot_username
        self.bot_name = bot_name
        self.clock = clock or Clock()
        self.limits = limits or RateLimits()
        self.users: dict[int, FakeUser] = {}
        self.chats: dict[int, FakeChat] = {}
        self.send_times: dict[int, list[float]] = {}
        self.all_send_times: list[float] = []
        self.rate_limited: list[tuple[float, int, int]] = []  # (when, chat id, retry_after)
        self.queries = {}
        self.callback_answers = {}
        self.commands: dict[tuple[str, str], list[JSON]] = {}
        self.invalid_deep_links: list[str] = []
        self.watchers: list[Callable[[StoredMessage], None]] = []  # told of every bot message written
        self.calls: Counter[str] = Counter()
        self.call_log: list[CallRecord] = []
        self.all_updates: dict[int, JSON] = {}
        self.pending: list[JSON] = []  # updates not yet confirmed (polling) or delivered (webhook)
        self.redeliveries: list[JSON] = []
        self.allowed_updates: list[str] = []
        self.webhook: JSON | None = None
        self.webhook_last_error: tuple[int, str] | None = None  # (unix time, message) of the last failure
        self.can_join_groups = True  # BotFather's /setjoingroups (getMe's can_join_groups)
        self.webhook_deliveries: list[tuple[int, int]] = []  # (update id, HTTP status; 0 = no connection)
        self.webhook_retry_delay = 0.05  # real seconds between attempts, like Telegram's retries but quick
        self.webhook_attempts = 60
        self.max_long_poll = 50.0
        self.held_methods: set[str] = set()  # calls of these wait, unanswered, until `release` (see `hold`)
        self.outage: dict[str, int] = {}  # method -> how many of its next calls answer 502 Bad Gateway
        self.held_calls = 0  # calls waiting right now
        self._released = asyncio.Event()
        self._waiting: list[asyncio.Event] = []  # one per held call, oldest first (`release_newest_first`)
        self._next_update_id = 1
        self._next_query_id = 1
        self._poll_generation = 0
        self._changed = asyncio.Event()
        self._closing = False
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self._webhook_task: asyncio.Task[None] | None = None
        self.base_url = ""

    # --- server -----------------------------------------------------------------------------------------
    @property
    def bot_base_url(self) -> str:
        return f"{self.base_url}/bot"

    @property
    def file_base_url(self) -> str:
        return f"{self.base_url}/file/bot"

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_route("*", "/file/bot{token}/{path:.*}", self._file)
        self._runner = web.AppRunner(app, shutdown_timeout=1.0, handler_cancellation=True, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        bound_host, bound_port = self._runner.addresses[0][:2]
        self.base_url = f"http://{bound_host}:{bound_port}"
        return self.base_url

    async def close(self) -> None:
        self._closing = True
        self._notify()
        if self._webhook_task is not None:
            self._webhook_task.cancel()
            await asyncio.gather(self._webhook_task, return_exceptions=True)
        if self._session is not None:
            await self._session.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _file(self, request: web.Request) -> web.Response:
        return web.json_response(ApiError(404, "Not Found: the fake serves no files").to_json(), status=404)

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        entry = API.get(method.lower())
        name = entry[0] if entry else method
        self.calls[name] += 1
        params: JSON = {}
        try:
            params = await read_params(request)
            if request.match_info["token"] != self.token:
                raise ApiError(401, "Unauthorized")
            if entry is None:
                raise ApiError(404, f"Not Found: method {method} is not implemented by the fake")
            if self.outage.get(name, 0) > 0:  # Telegram's front during an outage
                self.outage[name] -= 1
                raise ApiError(502, "Bad Gateway")
            if name in self.held_methods:
                await self._held()
            result = entry[1](self, params)
            if inspect.isawaitable(result):
                result = await result
        except ApiError as error:
            self.call_log.append(CallRecord(self.clock.now(), name, params, error.code, error.description))
            self._notify()
            return web.json_response(error.to_json(), status=error.code)
        except asyncio.CancelledError:  # the client hung up, e.g. PTB stopping a long poll
            self.call_log.append(CallRecord(self.clock.now(), name, params, 499, "client closed the request"))
            raise
        self.call_log.append(CallRecord(self.clock.now(), name, params, 200))
        self._notify()
        return web.json_response({"ok": True, "result": result})

    def hold(self, *methods: str) -> None:
        """From now on, calls of ``methods`` (e.g. "editMessageText") wait unanswered until `release`: a stuck
        network. A caller that disconnects meanwhile (a killed bot) cancels its call: it is never applied."""
        self.held_methods.update(methods)
        self._released = asyncio.Event()

    def release(self) -> None:
        """Let the held calls through (those whose caller is still there) and hold nothing from now on."""
        self.held_methods.clear()
        self._released.set()

    async def release_newest_first(self) -> None:
        """Let the held calls through one at a time, the newest first: the network delivered the later of two
        requests before the earlier one. Holds nothing from now on."""
        self.held_methods.clear()
        for own in reversed(self._waiting):
            own.set()
            await asyncio.sleep(0.01)  # the released call is applied before the next one is let go
        self._released.set()

    async def _held(self) -> None:
        self.held_calls += 1
        own = asyncio.Event()
        self._waiting.append(own)
        self._notify()
        released = asyncio.ensure_future(self._released.wait())
        mine = asyncio.ensure_future(own.wait())
        try:
            await asyncio.wait((released, mine), return_when=asyncio.FIRST_COMPLETED)
        finally:
            released.cancel()
            mine.cancel()
            self._waiting.remove(own)
            self.held_calls -= 1

    def _notify(self) -> None:
        """Wake whoever waits for a change (long polls, `wait_until`)."""
        self._changed.set()
        self._changed = asyncio.Event()

    async def _wait_change(self, timeout: float) -> None:
        event = self._changed
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)

    async def wait_until(self, predicate: Any, timeout: float = 5.0, what: str = "condition") -> None:
        """Wait (real seconds) until ``predicate()`` holds; re-checked after every API call."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"timed out after {timeout}s waiting for {what}")
            await self._wait_change(min(remaining, 0.05))

    async def wait_for_answer(self, query_id: str, timeout: float = 5.0) -> Any:
        await self.wait_until(
            lambda: query_id in self.callback_answers, timeout, f"answer to query {query_id}"
        )
        return self.callback_answers[query_id]

    # --- updates: queue, long polling, webhook ----------------------------------------------------------
    def enqueue(self, kind: str, payload: JSON, duplicate: bool = False) -> JSON:
        update = {"update_id": self._next_update_id, kind: payload}
        self._next_update_id += 1
        self.all_updates[update["update_id"]] = update
        self.pending.append(update)
        if duplicate:
            self.redeliver(update["update_id"])
        self._notify()
        self._kick_webhook()
        return update

    def redeliver(self, update_id: int) -> None:
        """Deliver an update once more, as Telegram does when it did not see the bot confirm it."""
        self.redeliveries.append(self.all_updates[update_id])
        self._notify()
        self._kick_webhook()

    def _wanted(self, update: JSON) -> bool:
        kind = next(key for key in update if key != "update_id")
        return not self.allowed_updates or kind in self.allowed_updates

    def _next_batch(self, limit: int) -> list[JSON]:
        """Redelivered updates first, then unconfirmed ones (Telegram forgets those the offset confirmed)."""
        self.pending = [update for update in self.pending if self._wanted(update)]
        batch, self.redeliveries = self.redeliveries, []
        return batch + self.pending[:limit]

    @api("getUpdates")
    async def get_updates(self, params: JSON) -> list[JSON]:
        if self.webhook:
            raise ApiError(409, "Conflict: can't use getUpdates method while webhook is active; "
                                "use deleteWebhook to delete the webhook first")  # fmt: skip
        offset = param_int(params, "offset", 0) or 0
        limit = min(max(param_int(params, "limit", 100) or 100, 1), 100)
        timeout = float(params.get("timeout") or 0)
        if isinstance(params.get("allowed_updates"), list):
            self.allowed_updates = list(params["allowed_updates"])
        if offset > 0:
            self.pending = [update for update in self.pending if update["update_id"] >= offset]
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + min(timeout, self.max_long_poll)
        while True:
            if generation != self._poll_generation:
                raise ApiError(409, "Conflict: terminated by other getUpdates request; "
                                    "make sure that only one bot instance is running")  # fmt: skip
            batch = self._next_batch(limit)
            remaining = deadline - loop.time()
            if batch or self._closing or remaining <= 0:
                return batch
            await self._wait_change(remaining)

    @api("setWebhook")
    def set_webhook(self, params: JSON) -> bool:
        url = str(params.get("url") or "")
        if not url:
            self.webhook = None
            return True
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or parts.hostname not in LOCAL_HOSTS:
            raise bad_request("bad webhook: the fake delivers only to 127.0.0.1")
        secret = params.get("secret_token")
        if secret is not None and not SECRET_TOKEN_RE.fullmatch(str(secret)):
            raise bad_request("secret token contains unallowed characters")
        if param_bool(params, "drop_pending_updates"):
            self.pending.clear()
        if isinstance(params.get("allowed_updates"), list):
            self.allowed_updates = list(params["allowed_updates"])
        self.webhook = {
            "url": url,
            "secret_token": secret,
            "max_connections": param_int(params, "max_connections", 40),
        }
        asyncio.get_running_loop().call_soon(self._kick_webhook)
        return True

    @api("deleteWebhook")
    def delete_webhook(self, params: JSON) -> bool:
        self.webhook = None
        if param_bool(params, "drop_pending_updates"):
            self.pending.clear()
        return True

    @api("getWebhookInfo")
    def get_webhook_info(self, params: JSON) -> JSON:
        info: JSON = {"url": "", "has_custom_certificate": False, "pending_update_count": len(self.pending)}
        if self.webhook:
            info.update(url=self.webhook["url"], max_connections=self.webhook["max_connections"])
            if self.allowed_updates:
                info["allowed_updates"] = self.allowed_updates
        if self.webhook_last_error is not None:
            info["last_error_date"], info["last_error_message"] = self.webhook_last_error
        return info

    def _kick_webhook(self) -> None:
        if self.webhook and not self._closing and (self._webhook_task is None or self._webhook_task.done()):
            self._webhook_task = asyncio.get_running_loop().create_task(self._deliver_to_webhook())

    async def _deliver_to_webhook(self) -> None:
        """POST updates one at a time, in order; retry a failed one, then give up on it like Telegram."""
        attempts: Counter[int] = Counter()
        while self.webhook and not self._closing:
            self.pending = [update for update in self.pending if self._wanted(update)]
            if self.redeliveries:
                update, repeat = self.redeliveries.pop(0), True
            elif self.pending:
                update, repeat = self.pending[0], False
            else:
                return
            status = await self.post_to_webhook(update)
            attempts[update["update_id"]] += 1
            if 200 <= status < 300 or attempts[update["update_id"]] >= self.webhook_attempts:
                del attempts[update["update_id"]]
                if not repeat and update in self.pending:
                    self.pending.remove(update)
                self._notify()
                continue
            if repeat:
                self.redeliveries.insert(0, update)
            await asyncio.sleep(self.webhook_retry_delay)

    async def post_to_webhook(self, update: JSON, secret_token: Any = _REGISTERED) -> int:
        """POST one update to the registered webhook; returns the HTTP status (0: could not connect)."""
        if not self.webhook:
            raise RuntimeError("no webhook is set")
        secret = self.webhook["secret_token"] if secret_token is _REGISTERED else secret_token
        headers = {"X-Telegram-Bot-Api-Secret-Token": secret} if secret else {}
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10))
        try:
            async with self._session.post(self.webhook["url"], json=update, headers=headers) as response:
                await response.read()
                status = response.status
        except aiohttp.ClientError:
            status = 0
        self.webhook_deliveries.append((update["update_id"], status))
        if not 200 <= status < 300:  # what getWebhookInfo reports, in Telegram's words
            reason = f"Wrong response from the webhook: {status}" if status else "Connection refused"
            self.webhook_last_error = (int(self.clock.wall()), reason)
        return status

    # --- what the test checks at the end ----------------------------------------------------------------
    @property
    def errors(self) -> list[CallRecord]:
        return [record for record in self.call_log if record.status != 200]

    def assert_no_bad_requests(self) -> None:
        bad = [record for record in self.call_log if record.status == 400]
        if bad:
            lines = [
                f"{r.method}: {r.description} (params {json.dumps(r.params, default=str)[:300]})" for r in bad
            ]
            raise AssertionError(f"the bot provoked {len(bad)} Bad Request(s):\n" + "\n".join(lines))

    def max_group_messages_per_minute(self, chat: FakeChat | int) -> int:
        return self.max_messages_in_window(chat, 60.0)

    def max_messages_in_window(self, chat: FakeChat | int, window: float) -> int:
        """The most messages (sends and edits the fake accepted) in any ``window`` virtual seconds."""
        return max_in_window(self.send_times.get(self.chat(chat).id, []), window)

    def messages(self, chat: FakeChat | int, include_deleted: bool = False) -> list[StoredMessage]:
        found = self.chat(chat).messages.values()
        return [message for message in found if include_deleted or not message.deleted]

    def bot_messages(self, chat: FakeChat | int) -> list[StoredMessage]:
        return [message for message in self.messages(chat) if message.from_bot]

    def group_texts(self, chat: FakeChat | int) -> list[str]:
        """Every text the bot ever showed in a chat: each version of each message and its button labels."""
        texts: list[str] = []
        for message in self.messages(chat, include_deleted=True):
            if message.from_bot:
                for version in message.versions:
                    texts.append(version.plain)
                    texts.extend(button_labels(version.reply_markup))
        return texts

    def unanswered_queries(self) -> list[str]:
        return [query_id for query_id in self.queries if query_id not in self.callback_answers]

    def commands_for(self, language_code: str = "", scope: JSON | None = None) -> list[JSON]:
        return self.get_my_commands({"scope": scope, "language_code": language_code})


async def read_params(request: web.Request) -> JSON:
    """Parameters as PTB sends them (form fields, JSON-encoded where not strings) or as a JSON body."""
    params: JSON = {}
    if request.content_type == "application/json":
        body = await request.read()
        params = json.loads(body) if body else {}
    elif request.can_read_body:
        params = dict(await request.post())
    params.update(request.query)
    for key in JSON_FIELDS:
        if isinstance(params.get(key), str):
            try:
                params[key] = json.loads(params[key])
            except ValueError:
                raise bad_request(f"can't parse {key} JSON object") from None
    return params


__all__ = ["CallRecord", "Clock", "FakeChat", "FakeTelegram", "FakeUser", "RateLimits", "StoredMessage"]
