// Inside a Discord Activity: the Embedded App SDK's handshake and sign-in. Discord opens the page in an
// iframe with frame_id, instance_id and platform in its query; elsewhere nothing here loads anything.
// Every request stays relative, so it goes through Discord's proxy (/.proxy/ paths) like the page itself.

import { ApiError, keepDiscordSession, request } from "./api.js";

const RETRY_RENEW_S = 30; // after a renewal that did not get through (no connection)

const SDK_URL = "static/discord-sdk.js"; // @discord/embedded-app-sdk, bundled (scripts/build_discord_sdk.sh)

/** Discord adds frame_id (and instance_id, platform) to the URL of an Activity it opens. */
export function launchedByDiscord() {
  return new URLSearchParams(location.search).has("frame_id");
}

function loadSdk() {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = SDK_URL;
    script.onload = () => resolve(window.DiscordEmbeddedAppSdk.DiscordSDK);
    script.onerror = () => reject(new Error("The Discord SDK did not load: close the Activity and open it again."));
    document.head.append(script);
  });
}

async function post(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { Accept: "application/json", "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  let answer = {};
  try {
    answer = await response.json();
  } catch {
    // a proxy's error page
  }
  if (!response.ok) throw new Error(answer.error || "");
  return answer;
}

/**
 * The SDK's order: ready, authorize (scope identify) for a code, our server's exchange (the code checked
 * with Discord, the person in this instance), then authenticate with the access token. The session is kept
 * with the ref of the channel's game (`authorization` and `gameRef` read them). Answers the seconds after
 * which the session is to be renewed (`keepRenewing`).
 */
export async function discordSignIn() {
  const DiscordSDK = await loadSdk();
  const config = await (await fetch("api/discord/config", { headers: { Accept: "application/json" } })).json();
  // our own console stays ours: the SDK would otherwise forward every console line to Discord's client
  const sdk = new DiscordSDK(config.client_id, { disableConsoleLogOverride: true });
  await sdk.ready();
  const { code } = await sdk.commands.authorize({
    client_id: config.client_id,
    response_type: "code",
    state: "",
    prompt: "none",
    scope: ["identify"],
  });
  const session = await post("api/discord/session", { code, instance_id: sdk.instanceId });
  await sdk.commands.authenticate({ access_token: session.access_token });
  keepDiscordSession(session.token, session.ref);
  return session.renew_in;
}

/**
 * Renew the session every `seconds` while the page is open; the server renews it only while this person is
 * still in the Activity, so a refusal (401) ends the renewals and the page's next request says why.
 * `onAuth` gets each new Authorization header.
 */
export function keepRenewing(auth, seconds, onAuth) {
  let current = auth;
  const renew = async () => {
    let next = RETRY_RENEW_S;
    try {
      const answer = await request("POST", "api/discord/renew", current);
      keepDiscordSession(answer.token);
      current = `discord ${answer.token}`;
      onAuth(current);
      next = answer.renew_in;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return;
    }
    setTimeout(renew, next * 1000);
  };
  setTimeout(renew, seconds * 1000);
}
