// Cards drawn with CSS: a card code is the engine's rank (23456789TJQKA) and suit (SHDC), e.g. "TD".

import { h } from "./dom.js";

export const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };

export function rankLabel(code) {
  return code[0] === "T" ? "10" : code[0];
}

/** "10♦": the card as people write it (the text the tests and screen readers read). */
export function cardText(code) {
  return rankLabel(code) + SUIT_SYMBOLS[code[1]];
}

export function isRed(code) {
  return code[1] === "H" || code[1] === "D";
}

/** One face-up card; `extra` adds classes and attributes (a button when it has an onclick). */
export function cardFace(code, extra = {}) {
  const { className = "", ...attrs } = extra;
  const tag = attrs.onclick ? "button" : "div";
  return h(
    tag,
    {
      class: `card face ${isRed(code) ? "red" : "black"} ${className}`.trim(),
      "data-card": code,
      "aria-label": cardText(code),
      ...(tag === "button" ? { type: "button" } : {}),
      ...attrs,
    },
    h("span", { class: "corner top" }, h("b", {}, rankLabel(code)), h("i", {}, SUIT_SYMBOLS[code[1]])),
    h("span", { class: "pip" }, SUIT_SYMBOLS[code[1]]),
    h("span", { class: "corner bottom" }, h("b", {}, rankLabel(code)), h("i", {}, SUIT_SYMBOLS[code[1]])),
  );
}

/** The back of a card (the talon, an opponent's hand). */
export function cardBack(className = "") {
  return h("div", { class: `card back ${className}`.trim(), "aria-hidden": "true" });
}
