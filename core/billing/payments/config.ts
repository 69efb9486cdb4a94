// Payment instances from PAYMENTS_FILE (YAML), one place for every merchant account. Secrets stay in the
// environment as ${VAR} placeholders; a missing one, an empty secret or a bad field stops the start, never a
// payment halfway. Example:
//   payments:
//     - { id: epay, kind: epay, pid: "1001", key: "${EPAY_KEY}", gateway: "https://pay.example.com" }
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { substituteEnv } from '../../config/env-substitution.js';
import type { Bilingual } from '../payment-provider.js';

export interface InstanceConfig {
  id: string;
  kind: string;
  [field: string]: unknown;
}

const ID = /^[a-z0-9][a-z0-9_-]{0,31}$/;

export function parsePaymentsConfig(raw: unknown, env: NodeJS.ProcessEnv, source = 'PAYMENTS_FILE'): InstanceConfig[] {
  const list = (raw as { payments?: unknown } | null)?.payments;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new Error(`${source}: "payments" must be a list of instances`);
  const missing = new Set<string>();
  const out: InstanceConfig[] = [];
  const seen = new Set<string>();
  for (const [i, item] of list.entries()) {
    if (!item || typeof item !== 'object') throw new Error(`${source}: payments[${i}] must be a mapping`);
    const c = substituteEnv(item, env, missing) as InstanceConfig;
    if (typeof c.id !== 'string' || !ID.test(c.id))
      throw new Error(`${source}: payments[${i}].id must match ${ID} (it is the notify path)`);
    if (seen.has(c.id)) throw new Error(`${source}: payment instance id "${c.id}" is used twice`);
    seen.add(c.id);
    if (typeof c.kind !== 'string') throw new Error(`${source}: payments[${i}].kind is required`);
    out.push(c);
  }
  if (missing.size > 0) throw new Error(`${source}: environment variables not set: ${[...missing].sort().join(', ')}`);
  return out;
}

export function readPaymentsFile(file: string | null, env: NodeJS.ProcessEnv): InstanceConfig[] {
  if (!file) return [];
  return parsePaymentsConfig(parseYaml(readFileSync(file, 'utf8')), env, file);
}

/** A required non-empty string field; an empty secret is refused (stripe-node and new-api#4353 both learned why). */
export function requireString(c: InstanceConfig, field: string): string {
  const v = c[field];
  if (typeof v === 'number') return String(v);
  if (typeof v !== 'string' || v.trim() === '')
    throw new Error(`payments.${c.id}.${field} is required and must not be empty`);
  return v.trim();
}

export function optionalString(c: InstanceConfig, field: string): string | undefined {
  const v = c[field];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

export function label(c: InstanceConfig, fallback: Bilingual): Bilingual {
  const l = c.label as Partial<Bilingual> | string | undefined;
  if (typeof l === 'string') return { zh: l, en: l };
  return { zh: l?.zh ?? fallback.zh, en: l?.en ?? fallback.en };
}

/** CNY providers: 1 TOKEN = 1 yuan = 100 fen. A price below a fen rounds up: never sell for less than listed. */
export function cnyAmount(priceMicro: number): number {
  return Math.ceil(priceMicro / 10_000);
}
