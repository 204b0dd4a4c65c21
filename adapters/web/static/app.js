// The page: who is looking (Telegram or the local game's session), their state, live updates, taps.
// The server decides everything; the page only draws the viewer's state and sends the payload of a legal move.

import { Api, ApiError, authorization, gameRef } from "./api.js";
import { h } from "./dom.js";
import { discordSignIn, keepRenewing, launchedByDiscord } from "./discord.js";
import { buzz, startInTelegram, telegramWebApp } from "./telegram.js";
import { cardActions, messageScreen, plainText, screen } from "./views.js";

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
  focusLost: null, // where the focus was when the drawing had nowhere to put it (see focusPlace)
  t: (text) => ui.strings[text] || text,
};

let api = null;
let webApp = null;

// ---- drawing -------------------------------------------------------------------------------------------

/** Draw the state again; the keyboard's focus stays where it was (see `focusPlace`). */
function draw() {
  const root = document.getElementById("app");
  if (!ui.state) return;
  const place = focusPlace(root) ?? (document.activeElement === document.body ? ui.focusLost : null);
  root.dataset.phase = ui.state.phase;
  root.dataset.version = String(ui.state.version);
  root.dataset.step = String(ui.state.step);
  root.replaceChildren(screen(ui.state, ui, handlers));
  ui.focusLost = place && !refocus(root, place) ? place : null; // a button disabled while a press is out
  tickClocks();
}

// The page is drawn anew on every change, which would drop the focus on <body> (the next Tab starting at
// the top of the page). What had the focus is found again in the new drawing: the same element (a button by
// what it presses, a card of the hand by its code), else the next sensible one: the card now at the played
// card's place in the hand, else the hand itself; the result's headline once the game is over.
function focusPlace(root) {
  const el = document.activeElement;
  if (!el || el === document.body || !root.contains(el)) return null;
  const cards = [...root.querySelectorAll(".fan .card")];
  if (el.matches(".fan .card")) return { card: el.dataset.card, index: cards.indexOf(el), hand: true };
  const inPlay = Boolean(el.closest(".hand, .actions, .felt"));
  if (el.dataset.kind) return { selector: `.actions [data-kind="${el.dataset.kind}"]`, hand: true };
  if (el.matches(".pair.target")) return { selector: `.pair.target[data-index="${el.dataset.index}"]`, hand: true };
  if (el.dataset.code) return { selector: `[data-code="${el.dataset.code}"]` };
  return inPlay ? { hand: true, index: 0 } : null;
}

/** Focus the first of the place's candidates that takes it (a disabled button does not); whether one did. */
function refocus(root, place) {
  const cards = [...root.querySelectorAll(".fan .card")];
  const candidates = [
    place.selector && root.querySelector(place.selector),
    place.card && cards.find((card) => card.dataset.card === place.card),
    place.hand && cards[Math.min(place.index ?? 0, cards.length - 1)],
    place.hand && root.querySelector(".hand, .headline"),
  ];
  for (const el of candidates) {
    el?.focus({ preventScroll: true });
    if (el && document.activeElement === el) return true;
  }
  return false;
}

// One polite live region (#announce, outside the app, which is redrawn) says what changed: the moves since
// the last state and, when it has become the viewer's turn, what to do ("Bob played 9♠. Your move: ...").
function announce(before, state) {
  const said = changes(before, state);
  if (said.length) document.getElementById("announce").textContent = said.map(sentence).join(" ");
}

function changes(before, state) {
  if (!before) return [];
  if (before.phase === "lobby" && state.phase !== "lobby") return [state.status]; // the game started
  if (before.ref !== state.ref || (before.step === state.step && before.phase === state.phase)) return [];
  const said = newEvents(before.events, state.events);
  if (state.phase === "over") return [...said, state.result?.lines?.[0], state.result?.you].filter(Boolean);
  const me = state.you !== null && state.you !== undefined ? state.seats[state.you] : null;
  if (me?.acting && state.actions.length) said.push(state.status || ui.t("Your turn"));
  return said;
}

/** The event lines of ``now`` that ``before`` did not end with (each state lists the last few). */
function newEvents(before, now) {
  for (let k = Math.min(before.length, now.length); k > 0; k--) {
    if (before.slice(-k).every((line, i) => line === now[i])) return now.slice(k);
  }
  return [...now];
}

function sentence(text) {
  const plain = plainText(text);
  return /[.!?…:]$/.test(plain) ? plain : `${plain}.`;
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

/** A state replaces the shown one unless it is older (a press's answer can arrive after the socket's);
 * whether it did (and was drawn). */
async function receive(state) {
  const shown = ui.state;
  if (shown && shown.ref === state.ref && state.version < shown.version) return false;
  if (typeof state.now === "number") ui.clockSkew = state.now - Date.now() / 1000;
  if (!shown || shown.step !== state.step || shown.phase !== state.phase || shown.ref !== state.ref) {
    ui.selected = null;
    ui.mode = null;
  }
  ui.state = state;
  if (state.lang && state.lang !== ui.lang) await loadStrings(state.lang);
  draw();
  announce(shown, state);
  return true;
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
    // drawn again either way: the socket's newer state may have been drawn while the press was out (busy)
    if (!(answer.state && (await receive(answer.state)))) draw();
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
    if (ui.selected) document.querySelector(".pair.target")?.focus(); // which card to beat: the next choice
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
