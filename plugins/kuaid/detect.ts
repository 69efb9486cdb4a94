// Offline courier detection from the number alone: every rule in the courier table is tried, each courier
// scores its best matching rule, and candidates come back best first (table order breaks ties).
import { COURIERS, type Courier } from './couriers.js';

/** Kuaidi100 accepts 6-32 characters; longer inputs are not tracking numbers of any courier we serve. */
const MIN_LEN = 6;
const MAX_LEN = 32;
/** Plenty for a caller to pick from; 12-digit numbers would otherwise list every legacy network. */
const MAX_CANDIDATES = 8;

export interface Detection {
  /** Best first. Empty when no rule matched. */
  candidates: Courier[];
  /** More than one courier fits the number. */
  ambiguous: boolean;
}

export type NormalisedNumber = { ok: true; no: string } | { ok: false; reason: string };

/** Trim, drop inner whitespace, upper-case; then check the shape every courier shares. */
export function normaliseNumber(raw: string): NormalisedNumber {
  const no = raw.replace(/\s+/g, '').toUpperCase();
  if (no.length === 0) return { ok: false, reason: 'the tracking number is empty' };
  if (!/^[0-9A-Z-]+$/.test(no)) {
    return { ok: false, reason: `tracking number "${no.slice(0, 40)}" may only hold letters, digits and "-"` };
  }
  if (no.length < MIN_LEN || no.length > MAX_LEN) {
    return { ok: false, reason: `tracking number must be ${MIN_LEN}-${MAX_LEN} characters, got ${no.length}` };
  }
  return { ok: true, no };
}

export function detectCouriers(no: string): Detection {
  const scored: Array<{ courier: Courier; weight: number; order: number }> = [];
  COURIERS.forEach((courier, order) => {
    let best = 0;
    for (const rule of courier.rules) if (rule.weight > best && rule.pattern.test(no)) best = rule.weight;
    if (best > 0) scored.push({ courier, weight: best, order });
  });
  scored.sort((a, b) => b.weight - a.weight || a.order - b.order);
  const candidates = scored.slice(0, MAX_CANDIDATES).map((s) => s.courier);
  return { candidates, ambiguous: candidates.length > 1 };
}

/** Why nothing matched, in words a caller can act on. */
export function unknownFormatReason(no: string): string {
  const shape = /^\d+$/.test(no) ? `${no.length} digits` : `"${no}"`;
  return `tracking number ${no} (${shape}) matches no known courier format; pass com= (e.g. com=shunfeng) to name the courier`;
}

/**
 * Reorder rule candidates by a provider's second opinion (Kuaidi100 autonumber, most likely first):
 * couriers it names come first in its order, the rest keep the rules' order after them. When the rules found
 * nothing, its list is taken as is.
 */
export function mergeOpinion(rules: Courier[], opinion: Courier[]): Courier[] {
  if (opinion.length === 0) return rules;
  if (rules.length === 0) return opinion.slice(0, MAX_CANDIDATES);
  const ruleCodes = new Set(rules.map((c) => c.code));
  const agreed = opinion.filter((c) => ruleCodes.has(c.code));
  // An opinion that shares nothing with the rules is still worth one try, after the rules' best guess.
  if (agreed.length === 0) return [rules[0], opinion[0], ...rules.slice(1)].slice(0, MAX_CANDIDATES);
  const agreedCodes = new Set(agreed.map((c) => c.code));
  return [...agreed, ...rules.filter((c) => !agreedCodes.has(c.code))];
}
