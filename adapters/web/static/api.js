// The server's API (see docs/webapp.md, "The page's contract"): who the viewer is, their state, presses,
// and the live WebSocket that sends the state again after every change of the chat.

const SESSION_KEY = "durak.session";
const REF_KEY = "durak.ref";
const DISCORD_KEY = "durak.discord"; // a Discord Activity's session token (discord.js signs it in)
const HELLO_CLOSE_CODE = 4401; // the server refused the credential: reconnecting would not help
const NO_GAME_CLOSE_CODE = 4404; // no such game for this viewer
const BACKOFF_START_MS = 500;
const BACKOFF_MAX_MS = 8000;

// What this tab keeps between its pages: in memory first, and in sessionStorage where the browser allows it.
// A third-party frame (the Discord Activity, Telegram Web's) may be refused storage altogether: then every
// read of sessionStorage throws, and the page goes on with what it holds in memory.
const memory = new Map();

function remember(key, value) {
  memory.set(key, value);
  try {
    sessionStorage.setItem(key, value);
  } catch {
    // storage blocked: memory only
  }
}

function recall(key) {
  if (memory.has(key)) return memory.get(key);
  try {
    return sessionStorage.getItem(key);
  } catch {
    return null;
  }
}

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * The viewer's Authorization header: Telegram's initData inside Telegram; in a Discord Activity the session
 * its sign-in got; else the session token, traded once for the one-time key the local game printed in the
 * URL fragment (then removed from the URL).
 */
export async function authorization(webApp) {
  if (webApp?.initData) return `tma ${webApp.initData}`;
  const activity = recall(DISCORD_KEY);
  if (activity) return `discord ${activity}`;
  const key = new URLSearchParams(location.hash.slice(1)).get("key");
  if (key) {
    history.replaceState(null, "", location.pathname + location.search);
    const answer = await request("POST", "api/session", `key ${key}`);
    remember(SESSION_KEY, answer.token);
    if (answer.ref) remember(REF_KEY, answer.ref);
  }
  const token = recall(SESSION_KEY);
  return token ? `session ${token}` : null;
}

/**
 * The game this page shows: ?ref= in the URL, else the Mini App's start parameter, else the session's.
 * ?ref= wins: it is the hand's button or a link of the page itself (Replay, Watch), while the start
 * parameter stays in Telegram's launch data for as long as the app is open, whatever page it goes to.
 */
export function gameRef(webApp) {
  const query = new URLSearchParams(location.search);
  return (
    query.get("ref") ||
    webApp?.initDataUnsafe?.start_param ||
    query.get("tgWebAppStartParam") ||
    recall(REF_KEY) ||
    ""
  );
}

/** A Discord Activity's session, kept for the pages this tab goes to next (a replay, the next game). */
export function keepDiscordSession(token, ref) {
  remember(DISCORD_KEY, token);
  if (ref) remember(REF_KEY, ref);
}

export async function request(method, path, auth, body) {
  const headers = { Accept: "application/json" };
  if (auth) headers.Authorization = auth;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, "");
  }
  let answer = {};
  try {
    answer = await response.json();
  } catch {
    // a proxy's error page: keep the status only
  }
  if (!response.ok) throw new ApiError(response.status, answer.error || answer.reason || "");
  return answer;
}

export class Api {
  constructor(auth, ref) {
    this.auth = auth;
    this.ref = ref;
  }

  strings(lang) {
    return request("GET", `api/strings?lang=${encodeURIComponent(lang)}`, this.auth);
  }

  state() {
    return request("GET", `api/state?ref=${encodeURIComponent(this.ref)}`, this.auth);
  }

  /** {ok, reason?, state}: a refused move still answers 200 with its reason and the current state. */
  press(payload) {
    return request("POST", "api/press", this.auth, { payload });
  }

  /** Keep a WebSocket open, reconnecting with backoff; every message's state goes to onState. */
  live(onState, onStatus, onError) {
    let delay = BACKOFF_START_MS;
    const open = () => {
      const url = new URL("api/ws", document.baseURI);
      url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
      const socket = new WebSocket(url);
      socket.onopen = () => {
        socket.send(JSON.stringify({ type: "hello", authorization: this.auth, ref: this.ref }));
      };
      socket.onmessage = (message) => {
        let data;
        try {
          data = JSON.parse(message.data);
        } catch {
          return;
        }
        if (data.type === "state" && data.state) {
          delay = BACKOFF_START_MS;
          onStatus("live");
          onState(data.state);
        } else if (data.type === "error") {
          onError(new ApiError(data.status || 0, data.error || ""));
        }
      };
      socket.onclose = (event) => {
        if (event.code === HELLO_CLOSE_CODE || event.code === NO_GAME_CLOSE_CODE) {
          onStatus("denied");
          return;
        }
        onStatus("reconnecting");
        setTimeout(open, delay);
        delay = Math.min(delay * 2, BACKOFF_MAX_MS);
      };
    };
    open();
  }
}
