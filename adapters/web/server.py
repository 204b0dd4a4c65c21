"""The web front end's HTTP side: the page, its API and its live WebSocket, as routes of an aiohttp app.

One more adapter over the same `GameService`: a press from the page is a `Press` of the chat's own platform
and goes through `GameService.handle` exactly like a button (compare-and-set, legality, staleness); the
effects the service returns for the chat are handed to that platform's adapter in this process (`deliver`:
in `durak-bot run`, `bot.timers.Deliveries.deliver`), so the group's table and the hands change as if the
button had been pressed in the chat. The page itself is sent only its viewer's own state
(`adapters.web.state`), after every saved change of its chat (`adapters.web.live`).

Who the viewer is comes from the ``Authorization`` header (the WebSocket: its first message): Telegram's
signed initData (`adapters.web.auth`), a Discord Activity's session token (`adapters.web.discord_auth`) or
a local session token (`adapters.web.sessions`). See
docs/webapp.md, "The page's contract".
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web
from redis.exceptions import RedisError

from adapters.web import limits
from adapters.web.auth import InitDataRefused, refusal_text, telegram_viewer
from adapters.web.discord_auth import ActivitySessions
from adapters.web.headers import FRAME_ANCESTORS, secured
from adapters.web.limits import BodyTooLarge, read_body, retry_after
from adapters.web.links import parse_ref, parse_replay_ref
from adapters.web.live import CLOSE_TOO_MANY, WRITER_LIMIT, LiveHub, Page, State, bound_send_buffer
from adapters.web.refusals import (
    CLOSE_NOT_FOUND,
    CLOSE_UNAUTHORIZED,
    asked_lang,
    failed,
    left_text,
    no_game_text,
    not_archived_text,
    not_signed_in,
    refuse,
    too_many,
    too_many_pages_here_text,
    too_many_pages_text,
    unavailable,
)
from adapters.web.replay import ReplayCache, replay_json
from adapters.web.sessions import LocalSessions, Viewer
from adapters.web.state import started_state, viewer_state
from adapters.web.strings import page_strings
from bot.adapter import (
    TELEGRAM,
    Alert,
    Analyses,
    Archived,
    ArchiveError,
    Busy,
    ChatRef,
    Effect,
    GameService,
    MembershipCheck,
    NotForYou,
    Person,
    Press,
    PressLimiter,
    Progress,
    Seen,
    Sight,
    StoreUnavailable,
    Translator,
    User,
    analysis_state,
    payloads,
    presence,
    translator,
)

log = logging.getLogger("durak.web")

STATIC = Path(__file__).parent / "static"
HELLO_TIMEOUT = 5.0  # seconds a new WebSocket has to say who it is
MAX_BODY = 4096  # bytes of a press (a payload is at most 64), on any app the routes are mounted on
REPLAY_CACHE_BYTES = 16 * 1024 * 1024  # built replays kept per process: ~230 of a 180-action game
JSON = "application/json"
NO_CACHE = "no-cache"  # the page and its files: kept, but revalidated before each use

DeliverEffects = Callable[[str, str, list[Effect]], Awaitable[None]]  # (platform, chat id, effects)
ResponseHook = Callable[[web.Request, web.StreamResponse], Awaitable[None]]
StillThere = Callable[[Viewer], Awaitable[bool]]  # a sign-in still holds (an Activity's person is in it)
RECHECK = 30.0  # seconds between checks of an open page's sign-in (`StillThere`)


class Refused(Exception):
    """The request's credentials were refused; ``text`` is translated for the page."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class WebFrontEnd:
    """The page's routes over one service (its read side, `service.queries`, for what the page shows), one
    Redis client (pub/sub, presence: handed over by whoever wires the process) and one delivery route."""

    def __init__(
        self,
        service: GameService,
        redis: Any,
        deliver: DeliverEffects,
        *,
        telegram_token: str | None = None,
        local: LocalSessions | None = None,
        activity: ActivitySessions | None = None,
        clock: Callable[[], float] = time.time,
        hello_timeout: float = HELLO_TIMEOUT,
        heartbeat: float = presence.REFRESH,
        static: Path = STATIC,
        read_limiter: PressLimiter | None = None,
        replay_limiter: PressLimiter | None = None,
        analysis_limiter: PressLimiter | None = None,
        analyses: Analyses | None = None,
        replay_cache_bytes: int = REPLAY_CACHE_BYTES,
        is_member: MembershipCheck | None = None,
        still_there: StillThere | None = None,
        frame_ancestors: tuple[str, ...] = FRAME_ANCESTORS,
        recheck: float = RECHECK,
    ) -> None:
        self.service = service
        self.deliver = deliver
        self.telegram_token = telegram_token  # set: Telegram's initData signs viewers in
        self.local = local  # set: the local browser game's one-time key and session tokens
        self.activity = activity  # set: a Discord Activity's session tokens sign viewers in
        self.is_member = (
            is_member  # set: only the chat's members take a seat from the page (bot.game.membership)
        )
        self.still_there = still_there  # set: asked on every request and every `recheck` s of an open page
        self.frame_ancestors = frame_ancestors  # who may frame the page (`adapters.web.headers`)
        self.recheck = recheck
        self.clock = clock
        self.hello_timeout = hello_timeout
        self.heartbeat = heartbeat
        self.static = static
        self.hub = LiveHub(redis, self.render, self.gone, clock=clock)
        # per person, checked before any Redis call (`adapters.web.limits`); presses: the service's limiter
        self.read_limiter = read_limiter or limits.read_limiter()
        self.replay_limiter = replay_limiter or limits.replay_limiter()
        self.analysis_limiter = analysis_limiter or limits.analysis_limiter()
        # a finished game's analysis, in the AI workers: the service's, by default (`bot.runtime.analyses`)
        self.analyses = analyses or service.analyses
        self._replays = ReplayCache(replay_cache_bytes)  # the bytes sent, by (game, language)
        self._building: dict[tuple[str, str], asyncio.Future[bytes]] = {}  # one build per replay at a time
        self._build_slot = asyncio.Semaphore(1)  # one replay built at a time, on a worker thread

    # ---- wiring ------------------------------------------------------------------------------------

    def routes(self, app: web.Application, prefix: str = "/") -> None:
        """Add the page's routes under ``prefix`` (the path of WEBAPP_URL), and start and stop the live
        channel with the app."""
        base = "/" + prefix.strip("/")
        base = "" if base == "/" else base
        app.on_response_prepare.append(secured(base, self.frame_ancestors))  # nosniff, framing, no-store
        app.router.add_get(base + "/", self.index)
        if base:
            app.router.add_get(base, self.index)
        if self.static.is_dir():
            files = app.router.add_static(base + "/static/", self.static, append_version=False)
            app.on_response_prepare.append(revalidated(files))
        app.router.add_get(base + "/healthz", self.healthz)
        app.router.add_get(base + "/api/strings", self.strings)
        app.router.add_post(base + "/api/session", self.session)
        app.router.add_get(base + "/api/state", self.state)
        app.router.add_get(base + "/api/replay", self.replay)
        app.router.add_get(base + "/api/analysis", self.analysis)
        app.router.add_post(base + "/api/press", self.press)
        app.router.add_get(base + "/api/ws", self.websocket)
        app.on_startup.append(self._start)
        app.on_shutdown.append(self._close_pages)
        app.on_cleanup.append(self._stop)

    def app(self, prefix: str = "/") -> web.Application:
        app = web.Application(client_max_size=MAX_BODY)
        self.routes(app, prefix)
        return app

    async def _start(self, app: web.Application) -> None:
        await self.hub.start()

    async def _close_pages(self, app: web.Application) -> None:
        await self.hub.close_all(
            1001, b"server shutting down"
        )  # at once: a page that stopped reading waits not

    async def _stop(self, app: web.Application) -> None:
        await self.hub.stop()
        if self.analyses is not None:
            await self.analyses.aclose()

    # ---- who is asking -----------------------------------------------------------------------------

    def viewer(self, authorization: str, lang: str) -> Viewer:
        """The viewer the credentials name; raises `Refused`."""
        scheme, _, credential = authorization.strip().partition(" ")
        tr = translator(lang)
        if scheme == "tma" and self.telegram_token:
            try:
                found = telegram_viewer(credential.strip(), self.telegram_token, self.clock())
            except InitDataRefused as refused:
                log.info("page refused: %s", refused)
                raise Refused(refusal_text(refused.reason, tr)) from None
            return Viewer(TELEGRAM, User(found.user_id, found.name, found.lang or "en"))
        if scheme == "discord" and self.activity is not None:
            found_activity = self.activity.viewer_of(credential.strip())
            if found_activity is not None:
                return found_activity
        if scheme == "session" and self.local is not None:
            viewer = self.local.viewer_of(credential.strip())
            if viewer is not None:
                return viewer
        raise Refused(not_signed_in(tr))

    async def checked_viewer(self, authorization: str, lang: str) -> Viewer:
        """`viewer`, then whether their sign-in still holds (`still_there`); raises `Refused`."""
        viewer = self.viewer(authorization, lang)
        if self.still_there is not None and not await self.still_there(viewer):
            raise Refused(left_text(translator(viewer.user.lang)))
        return viewer

    async def request_viewer(self, request: web.Request) -> Viewer:
        """The viewer of an API call; refused credentials end the request with a 401 ``{"error"}``."""
        try:
            return await self.checked_viewer(request.headers.get("Authorization", ""), asked_lang(request))
        except Refused as refused:
            raise web.HTTPUnauthorized(text=json.dumps({"error": refused.text}), content_type=JSON) from None

    @staticmethod
    def chat_of(viewer: Viewer, chat_id: str) -> ChatRef | None:
        """The chat a ref names, when the viewer's sign-in opens it (a Discord Activity's opens one channel
        only); None for any other, which every route answers as a game that is not there."""
        return ChatRef(viewer.platform, chat_id) if viewer.may_open(chat_id) else None

    # ---- the state ---------------------------------------------------------------------------------

    def state_for(self, chat: ChatRef, seen: Seen, lang: str) -> State | None:
        """The viewer's state JSON, when what they may see of the chat (`Seen.sight`) is something."""
        if seen.header is None or seen.sight is Sight.HIDDEN:
            return None
        if seen.sight is Sight.STARTED:  # the lobby's link: the game started
            return started_state(chat.chat_id, seen, lang, self.clock())
        return viewer_state(chat.chat_id, seen, lang, self.clock())

    async def seen(self, chat: ChatRef, viewer: Viewer, game_id: str) -> State | None:
        """The viewer's state JSON of the chat now, from the read side's `Seen` of them."""
        lang = viewer.user.lang
        return self.state_for(
            chat, await self.service.queries.seen(chat, viewer.user.id, game_id, lang), lang
        )

    async def render(self, chat: ChatRef, pages: list[Page]) -> list[tuple[Page, State | None]]:
        """Each page's state from one load of the chat. A state depends on the viewer only through their
        seat, language and sight, so pages alike (spectators, one person's two tabs) share one."""
        asked = [(page.viewer.user.id, page.game_id, page.viewer.user.lang) for page in pages]
        seen = await self.service.queries.seen_by(chat, asked)
        built: dict[tuple[int | None, str, Sight], State | None] = {}
        states: list[tuple[Page, State | None]] = []
        for page, theirs in zip(pages, seen, strict=True):
            key = (theirs.seat, page.viewer.user.lang, theirs.sight)
            if key not in built:
                built[key] = self.state_for(chat, theirs, page.viewer.user.lang)
            states.append((page, built[key]))
        return states

    def gone(self, page: Page) -> State:
        tr = translator(page.viewer.user.lang)
        return {"type": "error", "status": 404, "error": no_game_text(tr)}

    # ---- routes ------------------------------------------------------------------------------------

    async def index(self, request: web.Request) -> web.StreamResponse:
        """The page; for a replay's ref (``?ref=``, or the ``tgWebAppStartParam`` Telegram adds for a
        ``startapp`` link) the replay page, at the same address so its relative URLs and Telegram's launch
        data in the fragment stay as they are."""
        asked = request.query.get("tgWebAppStartParam") or request.query.get("ref") or ""
        page = self.static / ("replay.html" if parse_replay_ref(asked) else "index.html")
        if not page.is_file():
            return web.Response(status=404, text="the page is not installed")
        return web.FileResponse(page, headers={"Cache-Control": NO_CACHE})

    async def healthz(self, request: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    async def strings(self, request: web.Request) -> web.Response:
        """The page's own labels in the asked language (`adapters.web.strings`)."""
        tr = translator(request.query.get("lang") or asked_lang(request))
        return web.json_response(page_strings(tr))

    async def session(self, request: web.Request) -> web.Response:
        """Trade the local game's one-time key for a session token (the key is spent)."""
        scheme, _, key = request.headers.get("Authorization", "").strip().partition(" ")
        token = self.local.redeem(key.strip()) if self.local is not None and scheme == "key" else None
        if token is None or self.local is None:
            tr = translator(asked_lang(request))
            text = tr._("This link was used already: start the game again for a new one.")
            return failed(401, text)
        return web.json_response({"token": token, "ref": self.local.ref})

    async def state(self, request: web.Request) -> web.Response:
        viewer = await self.request_viewer(request)
        tr = translator(viewer.user.lang)
        if not self.read_limiter.allow(viewer.platform, viewer.user.id):  # before any Redis call
            return too_many(tr, self.read_limiter)
        ref = parse_ref(request.query.get("ref", ""))
        chat = self.chat_of(viewer, ref.chat_id) if ref is not None else None
        if ref is None or chat is None:
            return failed(404, no_game_text(tr))
        try:
            state = await self.seen(chat, viewer, ref.game_id)
        except StoreUnavailable:
            return unavailable(tr)
        if state is None:
            return failed(404, no_game_text(tr))
        return web.json_response(state)

    async def replay(self, request: web.Request) -> web.Response:
        """A finished game step by step with every hand (`adapters.web.replay`), for its players only: 404
        for a game the archive does not hold (unknown, or older than 30 days) or one of another chat, 403
        for someone who did not play it, 429 for one person asking too often. Who may watch is decided on
        the archive's own fields before anything is built; a replay is built once per language, off the
        event loop, and kept as the bytes sent."""
        asked = await self.archived_asked(request, self.replay_limiter)
        if isinstance(asked, web.Response):
            return asked
        game_id, archived, tr, _ = asked
        body = await self.replayed(game_id, archived, tr.lang)
        if body is None:
            return failed(404, not_archived_text(tr))
        return web.Response(body=body, content_type=JSON, charset="utf-8")

    async def analysis(self, request: web.Request) -> web.Response:
        """A finished game's analysis (`bot.runtime.analyses`), for its players only, refused exactly as its
        replay is. 200 with the analysis (`bot.render.analysis.analysis_state`) once computed; else 202 with
        ``{"progress": {"done", "total"}}``, the first ask starting it in the AI workers; 429 while the
        chat's other game (or as many as this process computes) is being analysed, or when the person started
        as many as they may lately (`limits.analysis_refusal`); 503 without AI workers."""
        asked = await self.archived_asked(request, self.analysis_limiter)
        if isinstance(asked, web.Response):
            return asked
        game_id, archived, tr, asker = asked
        if self.analyses is None:
            return failed(503, tr._("The game's analysis is not available here."))
        try:
            found = await self.analyses.ask(game_id, archived, asker=asker)
        except StoreUnavailable:
            return unavailable(tr)
        if isinstance(found, Progress):
            return web.json_response({"progress": {"done": found.done, "total": found.total}}, status=202)
        if isinstance(found, Busy):
            text, wait = limits.analysis_refusal(found, tr)
            return failed(429, text, {"Retry-After": wait})
        return web.json_response(analysis_state(archived.record, found, tr.lang))

    async def archived_asked(
        self, request: web.Request, limiter: PressLimiter
    ) -> tuple[str, Archived, Translator, Person] | web.Response:
        """The archived game a request's ``?ref=`` names, when its viewer played it (its id, its archive, the
        viewer's translator, who they are); else the refusal to send: 404 for a game the archive does not hold or another
        chat's, 403 for someone who did not play it, 429 past ``limiter`` (checked before any Redis call)."""
        viewer = await self.request_viewer(request)
        tr = translator(viewer.user.lang)
        if not limiter.allow(viewer.platform, viewer.user.id):
            return too_many(tr, limiter)
        ref = parse_replay_ref(request.query.get("ref", ""))
        chat = self.chat_of(viewer, ref.chat_id) if ref is not None else None
        if ref is None or chat is None:
            return failed(404, not_archived_text(tr))
        try:
            archived = await self.service.queries.archived_for(chat, ref.game_id, viewer.user.id)
        except StoreUnavailable:
            return unavailable(tr)
        if archived is NotForYou.NOT_ARCHIVED:  # another chat's game too: as if it were not there
            return failed(404, not_archived_text(tr))
        if archived is NotForYou.NOT_A_PLAYER:
            text = tr._("Only the players of this game can watch its replay.")
            return failed(403, text)
        return ref.game_id, archived, tr, (viewer.platform, viewer.user.id)

    async def replayed(self, game_id: str, archived: Archived, lang: str) -> bytes | None:
        """The replay's JSON in ``lang``, as sent; None when the game does not replay. Built once: asks for a
        replay being built wait for that build, and builds run one at a time on a worker thread (the engine's
        replay of a long game is tens of milliseconds of CPU that would otherwise stall every page)."""
        key = (game_id, lang)
        body = self._replays.get(key)
        if body is not None:
            return body
        building = self._building.get(key)
        if building is None:
            building = asyncio.ensure_future(self._build(key, archived.record))
            self._building[key] = building
            building.add_done_callback(lambda done: self._built(key, done))
        try:
            return await asyncio.shield(building)  # a request that goes away leaves the build to the others
        except ArchiveError as error:
            log.warning("archived game %s does not replay: %s", game_id, error)
            return None

    async def _build(self, key: tuple[str, str], record: str) -> bytes:
        async with self._build_slot:
            body = await asyncio.to_thread(replay_json, record, key[1], self.analyses is not None)
        self._replays.put(key, body)
        return body

    def _built(self, key: tuple[str, str], done: asyncio.Future[bytes]) -> None:
        self._building.pop(key, None)
        if not done.cancelled():
            done.exception()  # retrieved here too, in case every request waiting for it went away

    async def press(self, request: web.Request) -> web.Response:
        """A button of the page: through the service like a chat button; the refusal's text comes back."""
        viewer = await self.request_viewer(request)
        tr = translator(viewer.user.lang)
        try:
            body = json.loads(await read_body(request, MAX_BODY))  # bounded here, whatever app mounts this
            text = body["payload"] if isinstance(body, dict) else None
        except BodyTooLarge:
            return failed(413, tr._("That request is too large."))
        except (ValueError, KeyError):
            text = None
        payload = payloads.parse(text) if isinstance(text, str) else None
        if payload is None:
            return failed(400, tr._("That button is not valid."))
        chat = self.chat_of(viewer, payload.chat_id)
        if chat is None:
            return failed(404, no_game_text(tr))
        effects = await self.service.handle(
            Press(viewer.platform, viewer.user, payload.encode(), from_app=True), membership=self.is_member
        )
        alerts = [e for e in effects if isinstance(e, Alert) and e.user_id in (viewer.user.id, "")]
        limited = next((alert for alert in alerts if alert.rate_limited), None)
        if limited is not None and self.service.limiter is not None:  # refused before any Redis call: so here
            return failed(429, limited.text, {"Retry-After": retry_after(self.service.limiter)})
        applied = any(alert.applied for alert in alerts)  # this press was saved, whatever else was meanwhile
        said = next((alert.text for alert in alerts if alert.text), None)
        shown: list[Effect] = [e for e in effects if not isinstance(e, Alert)]
        if shown:
            await self.deliver(viewer.platform, payload.chat_id, shown)
        try:
            state = await self.seen(chat, viewer, payload.game_id)
        except StoreUnavailable:
            return unavailable(tr)
        # what the service said with an applied press is a note ("You joined."), else the refusal's reason
        answer: State = {"ok": applied, "state": state}
        if said is not None:
            answer["note" if answer["ok"] else "reason"] = said
        return web.json_response(answer)

    async def websocket(self, request: web.Request) -> web.WebSocketResponse:
        """The live channel: a hello first (who and which game), then every new state of the chat. A page
        is registered (subscribed, present) only once it may see the chat; an address or a person with
        too many sockets open here is refused (4429), before any Redis call."""
        socket = web.WebSocketResponse(
            heartbeat=self.heartbeat, max_msg_size=16 * 1024, writer_limit=WRITER_LIMIT
        )
        await socket.prepare(request)
        bound_send_buffer(request.transport)
        lang = asked_lang(request)
        address = client_address(request)
        if address is not None and not self.hub.sockets_per_address.take(address):
            await refuse(socket, 429, too_many_pages_here_text(translator(lang)), CLOSE_TOO_MANY)
            return socket
        try:
            page = await self.hello(socket, lang)
            if page is not None:
                if request.transport is not None:
                    page.abort = request.transport.abort
                await self.live_page(socket, page)
        finally:
            if address is not None:
                self.hub.sockets_per_address.give_back(address)
        return socket

    async def live_page(self, socket: web.WebSocketResponse, page: Page) -> None:
        """A page whose hello named a viewer: within its person's cap, and allowed to see the chat (one
        load, before anything is registered), it gets its state, then every new one until it closes."""
        tr = translator(page.viewer.user.lang)
        person = (page.viewer.platform, page.viewer.user.id)
        if not self.hub.sockets_per_person.take(person):
            await refuse(socket, 429, too_many_pages_text(tr), CLOSE_TOO_MANY)
            return
        try:
            state = await self.hub.current(page)
            if state is None:  # nothing registered, published or resumed for a refused hello
                await refuse(socket, 404, no_game_text(tr), CLOSE_NOT_FOUND)
                return
            await self.hub.add(page, state)
            watch = asyncio.ensure_future(self.signed_out(socket, page.viewer)) if self.still_there else None
            try:
                async for message in socket:  # the page says nothing more; pings are answered by aiohttp
                    if message.type == WSMsgType.ERROR:
                        break
            finally:
                if watch is not None:
                    watch.cancel()
        except ConnectionResetError:  # the connection dropped (or was cut for lagging: `live.close_page`)
            log.debug("page %s: connection lost", page.id)
        except (StoreUnavailable, RedisError, OSError) as error:  # the page reconnects and asks again
            log.warning("page %s closed: Redis failed (%s)", page.id, error)
            await socket.close(code=1011, message=b"store unavailable")
        finally:
            self.hub.sockets_per_person.give_back(person)
            with contextlib.suppress(RedisError, OSError):
                await self.hub.remove(page)

    async def signed_out(self, socket: web.WebSocketResponse, viewer: Viewer) -> None:
        """Close an open page once its sign-in no longer holds (its person left the Activity), checked every
        `recheck` seconds; its socket then ends the page's loop in `live_page`."""
        assert self.still_there is not None
        while True:
            await asyncio.sleep(self.recheck)
            if not await self.still_there(viewer):
                await refuse(socket, 401, left_text(translator(viewer.user.lang)), CLOSE_UNAUTHORIZED)
                return

    async def hello(self, socket: web.WebSocketResponse, lang: str) -> Page | None:
        """The socket's first message names the viewer and the game; without a valid one in time it is
        closed (4401)."""
        try:
            message = await asyncio.wait_for(socket.receive(), self.hello_timeout)
            data = json.loads(message.data) if message.type == WSMsgType.TEXT else None
        except (TimeoutError, ValueError):
            data = None
        ref = parse_ref(str(data.get("ref", ""))) if isinstance(data, dict) else None
        refusal = not_signed_in(translator(lang))
        viewer = None
        if isinstance(data, dict) and data.get("type") == "hello" and ref is not None:
            try:
                viewer = await self.checked_viewer(str(data.get("authorization", "")), lang)
            except Refused as refused:
                refusal = refused.text
        if viewer is None or ref is None:
            await refuse(socket, 401, refusal, CLOSE_UNAUTHORIZED)
            return None
        chat = self.chat_of(viewer, ref.chat_id)
        if chat is None:
            await refuse(socket, 404, no_game_text(translator(viewer.user.lang)), CLOSE_NOT_FOUND)
            return None
        return Page(chat, viewer, ref.game_id, socket)


def client_address(request: web.Request) -> str | None:
    """Whom a socket comes from, for the per-address cap: the peer; or, when the peer is not a public
    address (a reverse proxy on this host or its network), the last ``X-Forwarded-For`` entry, the address
    that proxy saw. None when such a proxy does not say: no address cap rather than one for everyone."""
    peer = request.remote
    if not peer:
        return None
    try:
        ip = ipaddress.ip_address(peer)
    except ValueError:
        return peer
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_global:
        return peer
    forwarded = ",".join(request.headers.getall("X-Forwarded-For", []))
    return forwarded.rpartition(",")[2].strip() or None


def revalidated(resource: web.AbstractResource) -> ResponseHook:
    """Marks the answers of ``resource`` ``Cache-Control: no-cache``: a browser (a Telegram webview too) keeps
    the page's files but asks again before using them (the static handler's ETag and Last-Modified make that
    a 304 while the file is the same), so a deploy's new app.js is used at the next opening."""

    async def mark(request: web.Request, response: web.StreamResponse) -> None:
        if request.match_info.route.resource is resource:
            response.headers["Cache-Control"] = NO_CACHE

    return mark
