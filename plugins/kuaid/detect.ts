// Offline courier detection from the number alone: every row of the format table (format-rules.ts) is tried,
// each courier scores its best matching row, and candidates come back best first with a confidence in 0..1.
import { COURIERS, type Courier, findCourier } from './couriers.js';
import { FORMAT_RULES } from './format-rules.js';
import { said, type TwoLanguages } from './two-languages.js';

/** Kuaidi100 accepts 6-32 characters; longer inputs are not tracking numbers of any courier we serve. */
const MIN_LEN = 6;
const MAX_LEN = 32;
/** Plenty for a caller to pick from; 12-digit numbers would otherwise list every legacy network. */
const MAX_CANDIDATES = 8;
/** The first two are "close" when their confidences differ by less than this: the caller should not trust the first blindly. */
const CLOSE_GAP = 0.25;
/** A second opinion (Kuaidi100 autonumber) that names a candidate lifts it to this confidence, the next ones 0.1 less each. */
const OPINION_TOP = 0.9;
const OPINION_FLOOR = 0.5;

export interface RankedCourier {
  courier: Courier;
  /** 0..1, two decimals: how much of the evidence for this number's shape points at this courier. */
  confidence: number;
}

export interface Detection {
  /** Best first. Empty when no rule matched. */
  candidates: RankedCourier[];
  /** The first two candidates are close: the number genuinely fits several couriers. */
  ambiguous: boolean;
}

interface CompiledRule {
  courier: Courier;
  order: number;
  pattern: RegExp;
  weight: number;
}

// Compiled once per isolate; a row naming a courier the table lacks is a data bug the tests catch.
const RULES: readonly CompiledRule[] = FORMAT_RULES.map((row) => {
  const courier = findCourier(row.com);
  if (!courier) throw new Error(`format-rules: unknown courier ${row.com}`);
  return { courier, order: COURIERS.indexOf(courier), pattern: new RegExp(row.pattern), weight: row.weight };
});

/** `reason` and `reason_zh`: why the number is refused, in English and in Chinese. */
export type NormalisedNumber = { ok: true; no: string } | { ok: false; reason: string; reason_zh: string };

const refuse = (reason: string, reason_zh: string): NormalisedNumber => ({ ok: false, reason, reason_zh });

/** Trim, drop inner whitespace, upper-case; then check the shape every courier shares. */
export function normaliseNumber(raw: string): NormalisedNumber {
  const no = raw.replace(/\s+/g, '').toUpperCase();
  if (no.length === 0) return refuse('the tracking number is empty', '快递单号为空');
  if (!/^[0-9A-Z-]+$/.test(no)) {
    const shown = no.slice(0, 40);
    return refuse(
      `tracking number "${shown}" may only hold letters, digits and "-"`,
      `快递单号 "${shown}" 只能包含字母、数字和 "-"`,
    );
  }
  if (no.length < MIN_LEN || no.length > MAX_LEN) {
    return refuse(
      `tracking number must be ${MIN_LEN}-${MAX_LEN} characters, got ${no.length}`,
      `快递单号须为 ${MIN_LEN} 至 ${MAX_LEN} 位，实际为 ${no.length} 位`,
    );
  }
  return { ok: true, no };
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

/** The first two are close (see CLOSE_GAP). */
export function isAmbiguous(candidates: readonly RankedCourier[]): boolean {
  return candidates.length > 1 && candidates[0].confidence - candidates[1].confidence < CLOSE_GAP;
}

export function detectCouriers(no: string): Detection {
  const best = new Map<Courier, { weight: number; order: number }>();
  for (const rule of RULES) {
    if (!rule.pattern.test(no)) continue;
    const seen = best.get(rule.courier);
    if (!seen || rule.weight > seen.weight) best.set(rule.courier, { weight: rule.weight, order: rule.order });
  }
  const scored = [...best.entries()].sort((a, b) => b[1].weight - a[1].weight || a[1].order - b[1].order);
  // Below 100 in total the shape itself is weak evidence, so nobody reaches full confidence.
  const total = Math.max(
    100,
    scored.reduce((sum, [, s]) => sum + s.weight, 0),
  );
  const candidates = scored
    .slice(0, MAX_CANDIDATES)
    .map(([courier, s]) => ({ courier, confidence: round2(s.weight / total) }));
  return { candidates, ambiguous: isAmbiguous(candidates) };
}

/** A courier the caller named: no guessing involved. */
export const certain = (courier: Courier): RankedCourier => ({ courier, confidence: 1 });

/** Why nothing matched, in words a caller can act on. */
export function unknownFormatReason(no: string): TwoLanguages {
  const digits = /^\d+$/.test(no);
  const shape = digits ? `${no.length} digits` : `"${no}"`;
  const shapeZh = digits ? `（${no.length} 位数字）` : ' ';
  return said(
    `tracking number ${no} (${shape}) matches no known courier format; pass com= (e.g. com=shunfeng) to name the courier`,
    `快递单号 ${no}${shapeZh}不符合任何已知快递公司的单号格式；请传 com=（如 com=shunfeng）指定快递公司`,
  );
}

/** Keep a list's confidences non-increasing after a reorder, so "first" and "most confident" never disagree. */
function monotone(list: RankedCourier[]): RankedCourier[] {
  let cap = 1;
  return list.map((r) => {
    const confidence = Math.min(cap, r.confidence);
    cap = confidence;
    return { courier: r.courier, confidence };
  });
}

const opinionConfidence = (i: number): number => round2(Math.max(OPINION_FLOOR, OPINION_TOP - 0.1 * i));

/**
 * Reorder rule candidates by a provider's second opinion (Kuaidi100 autonumber, most likely first):
 * couriers it names come first in its order (lifted to 0.9, 0.8, ...), the rest keep the rules' order after
 * them. When the rules found nothing, its list is taken as is.
 */
export function mergeOpinion(rules: RankedCourier[], opinion: Courier[]): RankedCourier[] {
  if (opinion.length === 0) return rules;
  if (rules.length === 0) {
    return opinion.slice(0, MAX_CANDIDATES).map((courier, i) => ({ courier, confidence: opinionConfidence(i) }));
  }
  const byCode = new Map(rules.map((r) => [r.courier.code, r]));
  const agreed = opinion.filter((c) => byCode.has(c.code));
  // An opinion that shares nothing with the rules is still worth one try, after the rules' best guess.
  if (agreed.length === 0) {
    const second = { courier: opinion[0], confidence: OPINION_FLOOR };
    return monotone([rules[0], second, ...rules.slice(1)].slice(0, MAX_CANDIDATES));
  }
  const agreedCodes = new Set(agreed.map((c) => c.code));
  const lifted = agreed.map((c, i) => ({
    courier: c,
    confidence: Math.max(byCode.get(c.code)!.confidence, opinionConfidence(i)),
  }));
  return monotone([...lifted, ...rules.filter((r) => !agreedCodes.has(r.courier.code))]);
}
