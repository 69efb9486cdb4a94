// The public catalogue at the console edge: operations, plans and packages from the live operations.yaml,
// with prices in TOKEN. Shared by the catalogue routes and the OpenAPI document.

import type { Locale } from '../../accounts/locale.js';
import type { PackageConfig, PlanConfig } from '../../config/operations-config.js';
import { fieldRows } from '../../config/response-fields.js';
import { toToken } from '../../kernel/money.js';
import type { Operation } from '../../registry/registry.js';
import type { Operation as OperationAnswer, Package, Plan } from '../contract/components.js';

export function presentOperation(op: Operation): OperationAnswer {
  return {
    code: op.code,
    name: op.name,
    description: op.description,
    // Both languages, so the console and the front page show the operation in the reader's language.
    text: op.text,
    // false: not configured on this server, refused before billing with 503 OPERATION_UNAVAILABLE.
    available: op.availability.available,
    price: toToken(op.priceMicro),
    cache_ttl: op.cacheTtl,
    timeout_ms: op.timeoutMs,
    input: op.input,
    example: op.example,
    response_example: op.responseExample,
    // The fields of `data` on success, flattened for the docs page's table (null: not declared).
    response: op.response ? fieldRows(op.response) : null,
    routes: [`GET /api/${op.code}`, `POST /api/${op.code}`, ...op.routes.map((r) => `${r.method} ${r.path}`)],
  };
}

/** Admin view: availability and, when unavailable, which settings would fix it (never shown to customers). */
export function presentOperationStatus(op: Operation) {
  return {
    code: op.code,
    name: op.name,
    text: op.text,
    plugin: op.plugin,
    available: op.availability.available,
    missing: op.availability.missing,
  };
}

/** `lang`: the language of name and description (the caller's); `text` carries both. */
export function presentPlan(p: PlanConfig, lang: Locale = 'en'): Plan {
  return {
    id: p.id,
    name: p.text[lang].name,
    description: p.text[lang].description,
    text: p.text,
    price: toToken(p.priceMicro),
    duration_days: p.durationDays,
    grant_tokens: toToken(p.grantMicro),
    quota: { calls_per_day: p.quota.callsPerDay, concurrency: p.quota.concurrency, cache_free: p.quota.cacheFree },
    codes: p.codes,
  };
}

export function presentPackage(p: PackageConfig, lang: Locale = 'en'): Package {
  return {
    id: p.id,
    name: p.text[lang].name,
    description: p.text[lang].description,
    text: p.text,
    price: toToken(p.priceMicro),
    tokens: toToken(p.tokensMicro),
  };
}
