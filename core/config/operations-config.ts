// Typed shape of operations.yaml after validation. Amounts are converted to micro-TOKEN here, once.
import type { Availability } from './availability.js';
import type { CanaryConfig } from './canary-config.js';
import type { ResponseFields } from './response-fields.js';
import type { UpstreamConfig } from './upstream-config.js';
export interface InputSchema {
  type: 'object';
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties?: boolean | Record<string, unknown>;
  [keyword: string]: unknown;
}

/** Customer-facing name and description per language (operations.yaml `name`/`description`, a string or {zh, en}). */
export type OperationText = Record<'zh' | 'en', { name: string; description: string }>;

export interface OperationConfig {
  code: string;
  /** English (the API's default language); `text` has both. */
  name: string;
  description: string;
  text: OperationText;
  /** `requires:` met? Unavailable operations are listed as such and refused before billing. */
  availability: Availability;
  plugin: string;
  priceMicro: number;
  cacheTtl: number;
  timeoutMs: number;
  enabled: boolean;
  input: InputSchema;
  example: Record<string, unknown> | null;
  responseExample: Record<string, unknown> | null;
  /** operations.yaml `response:`: the fields of `data` on success (core/config/response-fields.ts). */
  response: ResponseFields | null;
  options: Record<string, unknown>;
  /** operations.yaml `upstreams:` (run by the http plugin, tried in priority tiers), or null. */
  upstreams: UpstreamConfig[] | null;
  /** operations.yaml `charge_when:`: JSONata over `data`; a false result makes the answer free. */
  chargeWhen: string | null;
  /** With a plugin and upstreams: JSONata over the plugin's answer; true asks the upstreams (core/pipeline/fallback.ts). */
  fallbackWhen: string | null;
  /** Extra paths bound to this operation, e.g. { method: 'GET', path: '/api/video/:id' }. */
  routes: Array<{ method: 'GET' | 'POST'; path: string }>;
  /** operations.yaml `canary:`: sample calls that watch the upstream; null when none are declared. */
  canary: CanaryConfig | null;
}

/** A plan's or package's name and description per language (operations.yaml: a string or {zh, en}). */
export type CatalogueText = OperationText;

export interface PlanConfig {
  id: string;
  /** English; `text` has both. */
  name: string;
  description: string;
  text: CatalogueText;
  priceMicro: number;
  durationDays: number;
  grantMicro: number;
  /** concurrency null = no cap on free calls in flight. */
  quota: { callsPerDay: number; concurrency: number | null; cacheFree: boolean };
  codes: string[];
}

export interface PackageConfig {
  id: string;
  /** English; `text` has both. */
  name: string;
  description: string;
  text: CatalogueText;
  priceMicro: number;
  tokensMicro: number;
}

export interface OperationsConfig {
  file: string;
  operations: OperationConfig[];
  plans: PlanConfig[];
  packages: PackageConfig[];
  /** operations.yaml `signup:`: TOKEN (micro) granted once to a new account; 0 = none. */
  signup: { trialMicro: number };
  /** operations.yaml `manual_payment.instructions` per language, or null (the built-in wording). */
  manualInstructions: { zh: string; en: string } | null;
}
