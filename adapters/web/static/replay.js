// The replay page: a finished game step by step, every hand shown (after the game nothing is secret).
// The server rebuilds the game from its archive with the engine (GET api/replay); this page only draws
// the position of the step the slider is on. It reuses the game page's modules (cards, sign-in, Telegram).

import { ApiError, authorization, gameRef, request } from "./api.js";
import { cardFace, cardName } from "./cards.js";
import { h } from "./dom.js";
import { startInTelegram, telegramWebApp } from "./telegram.js";
import { deck, messageScreen, plainText, withRobots } from "./views.js";
import { checkDeal } from "./seal.js";

const replay = { data: null, step: 0, seal: null, auth: null, lang: "en", analysis: null, analysing: null, analysisError: "" };
const ANALYSIS_POLL_MS = 2000; // while the server computes the analysis (202), asked again this often

// The game page's own labels (GET api/strings: the cards' and the seats' words), beside the replay's.
let strings = {};
const t = (text) => strings[text] || text;

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
  const focused = focusKey(root);
  const before = root.dataset.step;
  root.dataset.step = String(step);
  root.replaceChildren(
    h(
      "div",
      { class: "screen replay" },
      h(
        "header",
        { class: "topbar" },
        h("h1", { class: "title" }, `${label("replay")} · ${data.title}`),
      ),
      h("section", { class: "replay-seats" }, data.players.map((player, seat) => seatRow(player, seat, position))),
      felt(position),
      h(
        "section",
        { class: "replay-move" },
        h("div", { class: "replay-step" }, label("step", { n: step, total: data.steps.length - 1 })),
        h("p", { class: "replay-line" }, withRobots(moveText(position))),
      ),
      controls(),
      position.over && data.result.length
        ? h("section", { class: "replay-result" }, data.result.map((line) => h("p", {}, withRobots(line))))
        : null,
      sealSection(),
      replay.data.analysis ? analysisSection() : null, // the server says whether it can make one
      moveList(),
    ),
  );
  if (focused) {
    const target = root.querySelector(focused);
    (target && !target.disabled ? target : root.querySelector(".replay-slider")).focus({ preventScroll: true });
  }
  showCurrentMove(root.querySelector(".replay-moves"));
  if (before !== undefined && before !== String(step)) {
    const where = label("step", { n: step, total: data.steps.length - 1 });
    document.getElementById("announce").textContent = `${where}: ${plainText(moveText(position))}`;
  }
}

// Drawn anew at every step: the focused control (Previous, Next, a jump, the move list) is focused again
// in the new drawing, so the keyboard does not start over from the top of the page.
function focusKey(root) {
  const el = document.activeElement;
  if (!el || !root.contains(el)) return null;
  if (el.dataset.go) return `[data-go="${el.dataset.go}"]`;
  if (el.dataset.jump) return `.analysis-costly [data-jump="${el.dataset.jump}"]`;
  if (el.matches(".replay-moves")) return ".replay-moves";
  return null;
}

/** The current move in view inside the move list's own box: the page itself does not scroll. */
function showCurrentMove(list) {
  const current = list?.querySelector("li.current");
  if (!current) return;
  const top = current.offsetTop;
  const bottom = top + current.offsetHeight;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
}

// What the browser's own check of the deal found (seal.js): shown under the result at every step.
const SEAL_LABELS = { none: "seal_none", hash: "seal_bad", deal: "deal_bad", draws: "draws_bad", moves: "moves_bad", result: "result_bad" };

function sealSection() {
  const { data, seal } = replay;
  if (!seal) return null;
  const text = seal.ok ? label("seal_ok") : label(SEAL_LABELS[seal.check] || "seal_bad", { step: seal.step });
  return h(
    "section",
    {
      class: `replay-seal ${seal.ok ? "ok" : "bad"}`,
      "data-seal": seal.ok ? "ok" : seal.check,
      "data-checks": (data.check?.names || []).join(" "),
    },
    h("p", {}, text),
    data.deal ? h("p", { class: "replay-seal-hash" }, `${label("seal")}: ${data.deal.commitment}`) : null,
  );
}

// ---- the analysis: the hard AI's view of each person's decisions (GET api/analysis) ----------------------

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  node.append(...children);
  return node;
}

function analysisSection() {
  const { analysis, analysing, analysisError } = replay;
  if (analysis) return analysisView(analysis);
  const asked = analysing !== null;
  return h(
    "section",
    { class: "replay-analysis" },
    asked
      ? h("p", { class: "analysis-progress" }, label("analysing", { done: analysing.done, total: analysing.total || "…" }))
      : h("button", { type: "button", class: "btn", "data-go": "analyse", onclick: askAnalysis }, label("analyse")),
    analysisError ? h("p", { class: "analysis-error" }, analysisError) : null,
  );
}

function analysisView(analysis) {
  const words = analysis.labels;
  const last = replay.data.steps.length - 1;
  return h(
    "section",
    { class: "replay-analysis" },
    h("h2", {}, words.heading),
    h("p", { class: "analysis-explained" }, words.explained),
    analysis.players.map((player) =>
      h(
        "div",
        { class: "analysis-player", "data-seat": player.seat },
        h(
          "p",
          { class: "analysis-summary" },
          withRobots(words.summary.replace("{name}", player.name).replace("{n}", player.decisions).replace("{costly}", player.costly)),
        ),
        chart(player, last, analysis.costly.filter((d) => d.seat === player.seat), words.chance),
      ),
    ),
    h("h3", {}, words.costliest),
    analysis.costly.length
      ? h(
          "ol",
          { class: "analysis-costly" },
          analysis.costly.map((decision) =>
            h(
              "li",
              {},
              h(
                "button",
                { type: "button", class: "link", "data-jump": decision.step, onclick: () => go(decision.step) },
                label("step", { n: decision.step, total: last }),
              ),
              ...withRobots(` · ${decision.name}: ${decision.text}`),
            ),
          ),
        )
      : h("p", {}, words.none),
  );
}

/** One player's chance of being the durak after each of their decisions: a line over the game's steps,
 * the costly decisions marked (each a jump to its step), and the slider's step as a vertical line. */
function chart(player, last, costly, title) {
  const width = 320, height = 90, pad = 4;
  const x = (step) => pad + ((width - 2 * pad) * step) / Math.max(last, 1);
  const y = (percent) => pad + ((height - 2 * pad) * (100 - percent)) / 100;
  const points = player.series.map(([step, percent]) => `${x(step).toFixed(1)},${y(percent).toFixed(1)}`).join(" ");
  const marks = costly.map((decision) => {
    const at = player.series.find(([step]) => step === decision.step);
    const mark = svg("circle", { class: "analysis-mark", cx: x(decision.step), cy: y(at ? at[1] : 50), r: 4, "data-jump": decision.step });
    mark.append(svg("title", {}, `${decision.step}: ${decision.text}`));
    mark.addEventListener("click", () => go(decision.step));
    return mark;
  });
  const name = `${plainText(player.name)}: ${title}`;
  return svg(
    "svg",
    { class: "analysis-chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": name },
    svg("title", {}, name),
    svg("rect", { class: "analysis-frame", x: 0.5, y: 0.5, width: width - 1, height: height - 1 }),
    svg("line", { class: "analysis-half", x1: pad, x2: width - pad, y1: y(50), y2: y(50) }),
    svg("line", { class: "analysis-now", x1: x(replay.step), x2: x(replay.step), y1: pad, y2: height - pad }),
    svg("polyline", { class: "analysis-line", points }),
    ...marks,
  );
}

/** Ask for the analysis; while the server computes it (202), ask again every couple of seconds. */
async function askAnalysis() {
  replay.analysing = replay.analysing || { done: 0, total: 0 };
  replay.analysisError = "";
  draw();
  try {
    const answer = await request("GET", `api/analysis?ref=${encodeURIComponent(replay.data.ref)}&lang=${replay.lang}`, replay.auth);
    if (answer.progress) {
      replay.analysing = answer.progress;
      draw();
      setTimeout(askAnalysis, ANALYSIS_POLL_MS);
      return;
    }
    replay.analysis = answer;
  } catch (error) {
    replay.analysing = null;
    replay.analysisError = error instanceof ApiError && error.message ? error.message : label("analysis_failed");
  }
  draw();
}

function seatRow(player, seat, position) {
  const marks = [];
  if (position.out.includes(seat)) marks.push(label("out"));
  const classes = ["replay-seat"];
  if (position.to_act === seat) classes.push("acting");
  if (position.seat === seat) classes.push("moved");
  for (const role of position.over ? [] : ["attacker", "defender"]) {
    if (position[role] !== seat) continue;
    classes.push(`role-${role}`);
    marks.push(role === "attacker" ? t("attacker") : t("defender")); // in words: no emoji font needed
  }
  const hand = position.hands[seat];
  return h(
    "div",
    { class: classes.join(" "), "data-seat": seat },
    h(
      "div",
      { class: "replay-seat-head" },
      h("span", { class: "seat-name" }, withRobots(player.name)),
      h("span", { class: "seat-cards", "aria-hidden": "true" }, String(hand.length)),
      h("span", { class: "sr-only" }, t("Cards in hand: {n}").replace("{n}", String(hand.length))),
      marks.map((mark) => h("span", { class: "role" }, mark)),
    ),
    h("div", { class: "replay-hand" }, hand.map((code) => cardFace(code, cardName(code, t), { className: "replay-card" }))),
  );
}

function felt(position) {
  return h(
    "section",
    { class: "felt replay-felt" },
    deck(position, t),
    h(
      "div",
      { class: "table-cards", style: { "--cols": String(Math.min(Math.max(position.table.length, 1), 3)) } },
      position.table.map(([attack, cover], i) =>
        h(
          "div",
          { class: `pair ${cover ? "covered" : "open"}`, "data-index": i },
          cardFace(attack, cardName(attack, t), { className: "attack" }),
          cover ? cardFace(cover, cardName(cover, t), { className: "cover" }) : null,
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
    h("h2", { id: "replay-moves" }, label("moves")),
    h(
      "ol",
      // its own scrolling box: focusable, so that the keyboard can scroll it too
      { class: "replay-moves", start: 0, tabindex: "0", "aria-labelledby": "replay-moves" },
      replay.data.steps.map((step, i) =>
        h(
          "li",
          { class: i === replay.step ? "current" : "", "data-step": i, onclick: () => go(i) },
          withRobots(moveText(step)),
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
  replay.lang = lang;
  try {
    auth = await authorization(webApp);
    replay.auth = auth;
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
  strings = await request("GET", `api/strings?lang=${replay.data.lang || lang}`).catch(() => ({}));
  replay.step = 0;
  replay.seal = await checkDeal(replay.data);
  draw();
}

const KEY_STEPS = { ArrowLeft: () => replay.step - 1, ArrowRight: () => replay.step + 1, Home: () => 0, End: () => Infinity };

document.addEventListener("keydown", (event) => {
  if (!replay.data || event.target instanceof HTMLInputElement || !KEY_STEPS[event.key]) return;
  event.preventDefault(); // the key moves the replay, not the page
  go(KEY_STEPS[event.key]());
});

start().catch((error) => {
  document.getElementById("app").replaceChildren(h("pre", { class: "crash" }, String(error)));
});
