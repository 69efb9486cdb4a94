// Rows -> JSON at the console edge: micro-TOKEN become TOKEN numbers, epoch ms become ISO strings. Secrets and
// hashes never leave through here.

import type { Context } from 'koa';
import type { Selectable } from 'kysely';
import type { ApiKeyRow } from '../../accounts/api-keys.js';
import { type Locale, localeFromAcceptLanguage } from '../../accounts/locale.js';
import type { User } from '../../accounts/users.js';
import { customerNote, ledgerLabel } from '../../billing/ledger-labels.js';
import { asMicro, MAX_MICRO, toToken } from '../../kernel/money.js';
import type { LedgerTable, OrdersTable } from '../../store/schema.js';
import type { ApiKey, LedgerEntry, Order, User as UserAnswer, UserWithBalance } from '../contract/components.js';

export function iso(ms: number | string): string;
export function iso(ms: number | string | null | undefined): string | null;
export function iso(ms: number | string | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString();
}

export function presentUser(u: User): UserAnswer {
  return { id: Number(u.id), email: u.email, role: u.role, status: u.status, created_at: iso(u.created_at) };
}

export function presentUserWithBalance(u: User): UserWithBalance {
  return {
    ...presentUser(u),
    balance: toToken(asMicro(u.balance)),
    available: toToken(asMicro(u.balance) - asMicro(u.held)),
  };
}

function list(json: string | null): string[] | null {
  return json ? (JSON.parse(json) as string[]) : null;
}

/**
 * A stored spend cap, read leniently: rows written before amounts were range-checked can hold more than 2^53
 * micro. Such a cap protects nothing beyond the maximum, so it shows as the maximum instead of breaking the list.
 */
function capMicro(value: unknown): number {
  const n = Number(value);
  return Number.isSafeInteger(n) && n <= MAX_MICRO ? n : MAX_MICRO;
}

export function presentKey(k: ApiKeyRow): ApiKey {
  const expired = k.expires_at !== null && Number(k.expires_at) <= Date.now();
  return {
    id: Number(k.id),
    name: k.name,
    prefix: k.prefix,
    status: k.status === 'active' && expired ? 'expired' : k.status,
    created_at: iso(k.created_at),
    last_used_at: iso(k.last_used_at),
    limits: {
      allowed_codes: list(k.allowed_codes),
      ip_allow: list(k.ip_allow),
      expires_at: iso(k.expires_at),
      rate_limit_per_sec: k.rate_limit_per_sec,
      rate_limit_burst: k.rate_limit_burst,
      max_concurrency: k.max_concurrency,
      daily_spend_cap: k.daily_spend_cap === null ? null : toToken(capMicro(k.daily_spend_cap)),
    },
    // Only after a rotation with a grace period: until when the previous secret is still accepted.
    ...(k.prev_expires_at ? { previous_secret_valid_until: iso(k.prev_expires_at) } : {}),
  };
}

/** One ledger row as an admin sees it (the admin's user page): the operator's note as written. */
export function presentLedgerEntry(r: Selectable<LedgerTable>): LedgerEntry {
  const amount = asMicro(r.amount);
  return {
    id: Number(r.id),
    created_at: iso(r.created_at),
    kind: r.kind,
    amount: toToken(amount),
    balance_after: toToken(asMicro(r.balance_after)),
    ref: r.ref,
    operation: r.operation,
    note: r.note,
    label: ledgerLabel({ kind: r.kind, ref: r.ref, amount }),
  };
}

/**
 * One ledger row as its customer sees it: the bilingual label, and the note only where it was written for them (an
 * admin's reason and id, a provider's refusal, stay in the admin views and the audit).
 */
export function presentCustomerLedgerEntry(r: Selectable<LedgerTable>): LedgerEntry {
  const entry = presentLedgerEntry(r);
  entry.note = customerNote(r);
  return entry;
}

export function presentOrder(o: Selectable<OrdersTable>): Order {
  return {
    id: Number(o.id),
    user_id: Number(o.user_id),
    kind: o.kind,
    item_id: o.item_id,
    item_name: o.item_name,
    amount: toToken(asMicro(o.amount)),
    provider: o.provider,
    status: o.status,
    created_at: iso(o.created_at),
    paid_at: iso(o.paid_at),
  };
}

/** One RFC 4180 CSV line (with its CRLF); a leading =,+,-,@ is quoted with a ' so spreadsheets do not run it. */
export function csvLine(values: ReadonlyArray<string | number | null>): string {
  const cell = (v: string | number | null): string => {
    if (v === null) return '';
    let s = String(v);
    if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return `${values.map(cell).join(',')}\r\n`;
}

/** A whole RFC 4180 CSV document. */
export function csv(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number | null>>): string {
  return [header, ...rows].map(csvLine).join('');
}

/** The caller's language for texts inside an answer (Accept-Language; English otherwise, as the API's default). */
export function langOf(ctx: Context): Locale {
  return localeFromAcceptLanguage(ctx.get('accept-language')) ?? 'en';
}
