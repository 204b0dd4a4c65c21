// The page: who is looking (Telegram or the local game's session), their state, live updates, taps.
// The server decides everything; the page only draws the viewer's state and sends the payload of a legal move.

import { Api, ApiError, authorization, gameRef } from "./api.js";
import { h } from "./dom.js";
import { discordSignIn, keepRenewing, launchedByDiscord } from "./discord.js";
import { buzz, startInTelegram, telegramWebApp } from "./telegram.js";
import { cardActions, messageScreen, screen } from "./views.js";

const TOAST_MS = 3500;
const CLOCK_TICK_MS = 250;

const ui = {
  state: null,
  strings: {},
  lang: "",
  selected: null, // a hand card waiting for its target (or for Transfer)
  mode: null, // "transfer": the next card tapped is transferred
  busy: false, // a press is on its way
  connection: "connecting",
  clockSkew: 0, // server clock minus ours, when the state tells the server's time
  t: (text) => ui.strings[text] || text,
};

let api = null;
let webApp = null;

// ---- drawing -------------------------------------------------------------------------------------------

function draw() {
  const root = document.getElementById("app");
  if (!ui.state) return;
  root.dataset.phase = ui.state.phase;
  root.dataset.version = String(ui.state.version);
  root.dataset.step = String(ui.state.step);
  root.replaceChildren(screen(ui.state, ui, handlers));
  tickClocks();
}

function showMessage(text) {
  document.getElementById("app").replaceChildren(messageScreen(text));
}

let toastTimer = 0;

function toast(text) {
  const box = document.getElementById("toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    box.hidden = true;
  }, TOAST_MS);
}

function tickClocks() {
  const now = Date.now() / 1000 + ui.clockSkew;
  for (const el of document.querySelectorAll("[data-deadline]")) {
    const left = Math.max(0, Number(el.dataset.deadline) - now);
    const share = Math.min(1, left / Number(el.dataset.seconds || 60));
    el.style.setProperty("--left", share.toFixed(3));
    const seconds = Math.ceil(left);
    el.dataset.clock = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
    el.classList.toggle("urgent", left <= 10);
  }
}

// ---- state ---------------------------------------------------------------------------------------------

/** A state replaces the shown one unless it is older (a press's answer can arrive after the socket's). */
async function receive(state) {
  const shown = ui.state;
  if (shown && shown.ref === state.ref && state.version < shown.version) return;
  if (typeof state.now === "number") ui.clockSkew = state.now - Date.now() / 1000;
  if (!shown || shown.step !== state.step || shown.phase !== state.phase || shown.ref !== state.ref) {
    ui.selected = null;
    ui.mode = null;
  }
  ui.state = state;
  if (state.lang && state.lang !== ui.lang) await loadStrings(state.lang);
  draw();
}

async function loadStrings(lang) {
  ui.lang = lang;
  document.documentElement.lang = lang;
  try {
    ui.strings = await api.strings(lang);
  } catch {
    ui.strings = {}; // the English labels
  }
}

// ---- taps ----------------------------------------------------------------------------------------------

async function send(action) {
  if (ui.busy) return;
  ui.busy = true;
  ui.selected = null;
  ui.mode = null;
  draw();
  try {
    const answer = await api.press(action.payload);
    if (answer.reason) {
      buzz(webApp, "error");
      toast(answer.reason); // refused: someone was faster, or the game moved on
    } else {
      buzz(webApp, "tap");
      if (answer.note) toast(answer.note);
    }
    ui.busy = false;
    if (answer.state) await receive(answer.state);
    else draw();
  } catch (error) {
    ui.busy = false;
    buzz(webApp, "error");
    toast(error instanceof ApiError && error.message ? error.message : ui.t("No connection: try again"));
    draw();
  }
}

const handlers = {
  send,
  press: (payload) => send({ payload }),
  tapCard(code) {
    const moves = cardActions(ui.state, code);
    if (ui.mode === "transfer") {
      const transfer = moves.find((a) => a.kind === "transfer");
      if (transfer) send(transfer);
      return;
    }
    if (ui.selected === code) {
      ui.selected = null;
    } else if (moves.length === 1) {
      send(moves[0]);
      return;
    } else if (moves.length > 1) {
      ui.selected = code;
    }
    draw();
  },
  cover(target) {
    const move = cardActions(ui.state, ui.selected).find((a) => a.kind === "cover" && a.target === target);
    if (move) send(move);
  },
  pickTransfer() {
    ui.mode = ui.mode === "transfer" ? null : "transfer";
    ui.selected = null;
    draw();
  },
  clearSelection() {
    ui.selected = null;
    ui.mode = null;
    draw();
  },
};

// ---- start ---------------------------------------------------------------------------------------------

function firstLanguage() {
  return (webApp?.initDataUnsafe?.user?.language_code || navigator.language || "en").slice(0, 2).toLowerCase();
}

async function start() {
  webApp = launchedByDiscord() ? null : await telegramWebApp();
  if (webApp) startInTelegram(webApp);
  let auth = null;
  let renewIn = 0;
  try {
    if (launchedByDiscord()) renewIn = await discordSignIn(); // its session and the channel's game
    auth = await authorization(webApp);
  } catch (error) {
    api = new Api(null, "");
    await loadStrings(firstLanguage());
    showMessage(error.message || ui.t("This link has been used already: open the game again from the bot."));
    return;
  }
  api = new Api(auth, gameRef(webApp));
  if (renewIn) keepRenewing(auth, renewIn, (renewed) => (api.auth = renewed));
  await loadStrings(firstLanguage());
  if (!auth) {
    showMessage(ui.t("Open this page from the bot: the Open table button in Telegram, or the link durak-bot play --web prints."));
    return;
  }
  try {
    await receive(await api.state());
  } catch (error) {
    const status = error instanceof ApiError ? error.status : 0;
    if (status === 401) {
      showMessage(error.message || ui.t("Disconnected")); // signed out for good: nothing to wait for
      return;
    }
    // no game yet (a lobby may open) or no connection (the live socket keeps trying): say so and wait
    showMessage(error.message || ui.t(status === 404 ? "There is no game here now." : "No connection: try again"));
  }
  api.live(
    receive,
    (status) => {
      if (status === ui.connection) return;
      ui.connection = status;
      draw();
    },
    (error) => {
      ui.state = null; // the next state (a new lobby this viewer joins) is drawn again
      showMessage(error.message || ui.t("There is no game here now."));
    },
  );
  setInterval(tickClocks, CLOCK_TICK_MS);
}

window.addEventListener("resize", () => draw()); // the hand's rows follow the width

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") handlers.clearSelection();
});

start().catch((error) => {
  document.getElementById("app").replaceChildren(h("pre", { class: "crash" }, String(error)));
});
