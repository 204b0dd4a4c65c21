// The deal's seal, checked in the browser (docs/fairness.md). When a game starts, the table shows the
// SHA-256 of "durak-deal-v1|<salt>|<order>"; the replay reveals the salt and the order. This page checks,
// with nothing but Web Crypto and the replay's own positions, that (1) they give the seal, and (2) every
// card dealt and drawn came from that order, in that order: the cards first seen in the hands at the deal
// are the order's first ones, and each time the talon shrinks by k, the cards that appear in the hands for
// the first time are the talon's next k. The turned-up card is in view from the start (it shows trumps), so
// it is never "first seen" when someone draws it, nor when a trump exchange puts it in a hand.

export const SEAL_PREFIX = "durak-deal-v1";

export async function sealOf(salt, order) {
  const bytes = new TextEncoder().encode(`${SEAL_PREFIX}|${salt}|${order}`);
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

function sameSet(a, b) {
  return a.size === b.size && [...a].every((card) => b.has(card));
}

// Which of the replay's steps breaks the order, or null: what the positions show against what was committed.
// The card turned up at the deal (the first position's trump card) lies under the talon: it is in view from
// the start and drawn last, so the talon deals the order without it, then it. A step's refill lists who
// drew how many, in the order they drew; each of them must have got the talon's next cards.
export function drawsFollow(order, steps) {
  const bottom = steps.length ? steps[0].trump_card : null;
  const talonOrder = bottom ? [...order.filter((card) => card !== bottom), bottom] : order;
  const seen = new Set(bottom ? [bottom] : []);
  let drawn = 0;
  for (const [index, position] of steps.entries()) {
    const freshIn = (cards) => new Set(cards.filter((card) => !seen.has(card)));
    const nowDrawn = talonOrder.length - position.talon;
    if (index === 0) {
      const dealt = new Set(talonOrder.slice(0, nowDrawn));
      if (!sameSet(freshIn(position.hands.flat()), dealt)) return index;
    } else {
      let next = drawn;
      const bySeat = new Map();
      for (const [seat, n] of position.drawn) {
        const run = talonOrder.slice(next, next + n).filter((card) => card !== bottom);
        bySeat.set(seat, [...(bySeat.get(seat) || []), ...run]);
        next += n;
      }
      if (next !== nowDrawn) return index;
      for (const [seat, hand] of position.hands.entries()) {
        if (!sameSet(freshIn(hand), new Set(bySeat.get(seat) || []))) return index;
      }
      if (freshIn(position.table.flat().filter(Boolean)).size) return index; // a card from nowhere
    }
    [...position.hands.flat(), ...position.table.flat().filter(Boolean)].forEach((card) => seen.add(card));
    drawn = nowDrawn;
  }
  return null;
}

// {ok, reason} for a replay's revealed deal: "seal" (the hash differs), "draws" (a step drew a card out of
// order; step says which), or ok.
export async function checkDeal(deal, steps) {
  if (!deal) return { ok: false, reason: "none" };
  if ((await sealOf(deal.salt, deal.order)) !== deal.commitment.toLowerCase()) {
    return { ok: false, reason: "seal" };
  }
  const broken = drawsFollow(deal.order.split(" "), steps);
  if (broken !== null) return { ok: false, reason: "draws", step: broken };
  return { ok: true, reason: "" };
}
