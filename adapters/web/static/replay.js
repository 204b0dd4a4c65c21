// The replay page: a finished game step by step, every hand shown (after the game nothing is secret).
// The server rebuilds the game from its archive with the engine (GET api/replay); this page only draws
// the position of the step the slider is on. It reuses the game page's modules (cards, sign-in, Telegram).

import { ApiError, authorization, gameRef, request } from "./api.js";
import { cardFace } from "./cards.js";
import { h } from "./dom.js";
import { startInTelegram, telegramWebApp } from "./telegram.js";
import { deck, messageScreen } from "./views.js";
import { checkDeal } from "./seal.js";

const replay = { data: null, step: 0, seal: null };

function label(key, values = {}) {
  let text = replay.data?.labels?.[key] ?? key;
  for (const [name, value] of Object.entries(values)) text = text.replace(`{${name}}`, String(value));
  return text;
}

function moveText(step) {
  return step.move.join(" · ");
}

// ---- drawing -------------------------------------------------------------------------------------------

function draw() {
  const root = document.getElementById("app");
  const { data, step } = replay;
  const position = data.steps[step];
  root.dataset.step = String(step);
  root.replaceChildren(
    h(
      "div",
      { class: "screen replay" },
      h(
        "header",
        { class: "topbar" },
        h("div", { class: "title" }, `${label("replay")} · ${data.title}`),
      ),
      h("section", { class: "replay-seats" }, data.players.map((player, seat) => seatRow(player, seat, position))),
      felt(position),
      h(
        "section",
        { class: "replay-move" },
        h("div", { class: "replay-step" }, label("step", { n: step, total: data.steps.length - 1 })),
        h("p", { class: "replay-line" }, moveText(position)),
      ),
      controls(),
      position.over && data.result.length
        ? h("section", { class: "replay-result" }, data.result.map((line) => h("p", {}, line)))
        : null,
      sealSection(),
      moveList(),
    ),
  );
  document.querySelector(".replay-moves li.current")?.scrollIntoView({ block: "nearest" });
}

// What the browser's own check of the deal found (seal.js): shown under the result at every step.
function sealSection() {
  const { data, seal } = replay;
  if (!seal) return null;
  const text =
    seal.ok ? label("seal_ok")
    : seal.reason === "none" ? label("seal_none")
    : seal.reason === "seal" ? label("seal_bad")
    : label("draws_bad", { step: seal.step });
  return h(
    "section",
    { class: `replay-seal ${seal.ok ? "ok" : "bad"}`, "data-seal": seal.ok ? "ok" : seal.reason },
    h("p", {}, text),
    data.deal ? h("p", { class: "replay-seal-hash" }, `${label("seal")}: ${data.deal.commitment}`) : null,
  );
}

function seatRow(player, seat, position) {
  const marks = [];
  if (position.out.includes(seat)) marks.push(label("out"));
  const classes = ["replay-seat"];
  if (position.to_act === seat) classes.push("acting");
  if (position.seat === seat) classes.push("moved");
  if (!position.over && position.attacker === seat) classes.push("role-attacker");
  if (!position.over && position.defender === seat) classes.push("role-defender");
  const hand = position.hands[seat];
  return h(
    "div",
    { class: classes.join(" "), "data-seat": seat },
    h(
      "div",
      { class: "replay-seat-head" },
      h("span", { class: "seat-name" }, player.name),
      h("span", { class: "seat-cards" }, String(hand.length)),
      marks.length ? h("span", { class: "role" }, marks.join(" ")) : null,
    ),
    h("div", { class: "replay-hand" }, hand.map((code) => cardFace(code, { className: "replay-card" }))),
  );
}

function felt(position) {
  return h(
    "section",
    { class: "felt replay-felt" },
    deck(position, { talon: label("talon"), trump: label("trump"), discard: label("discard") }),
    h(
      "div",
      { class: "table-cards", style: { "--cols": String(Math.min(Math.max(position.table.length, 1), 3)) } },
      position.table.map(([attack, cover], i) =>
        h(
          "div",
          { class: `pair ${cover ? "covered" : "open"}`, "data-index": i },
          cardFace(attack, { className: "attack" }),
          cover ? cardFace(cover, { className: "cover" }) : null,
        ),
      ),
    ),
  );
}

function controls() {
  const last = replay.data.steps.length - 1;
  return h(
    "section",
    { class: "replay-controls" },
    h(
      "button",
      { type: "button", class: "btn", "data-go": "previous", disabled: replay.step === 0, onclick: () => go(replay.step - 1) },
      label("previous"),
    ),
    h("input", {
      type: "range",
      class: "replay-slider",
      min: 0,
      max: last,
      value: replay.step,
      "aria-label": label("step", { n: replay.step, total: last }),
      oninput: (event) => go(Number(event.target.value), true),
    }),
    h(
      "button",
      { type: "button", class: "btn", "data-go": "next", disabled: replay.step === last, onclick: () => go(replay.step + 1) },
      label("next"),
    ),
  );
}

function moveList() {
  return h(
    "section",
    { class: "replay-list" },
    h("h2", {}, label("moves")),
    h(
      "ol",
      { class: "replay-moves", start: 0 },
      replay.data.steps.map((step, i) =>
        h(
          "li",
          { class: i === replay.step ? "current" : "", "data-step": i, onclick: () => go(i) },
          moveText(step),
        ),
      ),
    ),
  );
}

/** Show step ``n``; while the slider is dragged, its element is kept (redrawing it would drop the drag). */
function go(n, fromSlider = false) {
  const last = replay.data.steps.length - 1;
  replay.step = Math.max(0, Math.min(last, n));
  if (!fromSlider) {
    draw();
    return;
  }
  const slider = document.querySelector(".replay-slider");
  draw();
  const fresh = document.querySelector(".replay-slider");
  if (slider && fresh && slider !== fresh) {
    fresh.replaceWith(slider);
    slider.setAttribute("aria-label", label("step", { n: replay.step, total: last }));
    slider.focus();
  }
}

// ---- start ---------------------------------------------------------------------------------------------

function showMessage(text) {
  document.getElementById("app").replaceChildren(messageScreen(text));
}

/** The viewer's language before the replay says it: Telegram's, else the browser's. */
function firstLanguage(webApp) {
  return (webApp?.initDataUnsafe?.user?.language_code || navigator.language || "en").slice(0, 2).toLowerCase();
}

async function start() {
  const webApp = await telegramWebApp();
  if (webApp) startInTelegram(webApp);
  const lang = firstLanguage(webApp);
  let auth = null;
  try {
    auth = await authorization(webApp);
  } catch (error) {
    showMessage(error.message); // the local game's link was used already: the server's words
    return;
  }
  try {
    // without credentials the server answers 401 with its own translated words: shown as they come
    const ref = gameRef(webApp); // the result screen's ?ref=, else the group's Replay link's start parameter
    replay.data = await request("GET", `api/replay?ref=${encodeURIComponent(ref)}&lang=${lang}`, auth);
  } catch (error) {
    if (error instanceof ApiError && error.message) {
      showMessage(error.message);
    } else {
      const strings = await request("GET", `api/strings?lang=${lang}`).catch(() => ({}));
      showMessage(strings["No connection: try again"] || "No connection: try again");
    }
    return;
  }
  document.documentElement.lang = replay.data.lang || "en";
  replay.step = 0;
  replay.seal = await checkDeal(replay.data.deal, replay.data.steps);
  draw();
}

document.addEventListener("keydown", (event) => {
  if (!replay.data || event.target instanceof HTMLInputElement) return;
  if (event.key === "ArrowLeft") go(replay.step - 1);
  if (event.key === "ArrowRight") go(replay.step + 1);
  if (event.key === "Home") go(0);
  if (event.key === "End") go(replay.data.steps.length - 1);
});

start().catch((error) => {
  document.getElementById("app").replaceChildren(h("pre", { class: "crash" }, String(error)));
});
