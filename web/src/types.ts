// Shapes of the console API's answers. Routes defined in core/console/contract/ give their types from there
// (`Reply<'listKeys'>`, type-only imports: nothing of core reaches the bundle); the rest are written here, as far
// as the pages read them.

export type { UpstreamStatus } from '../../core/console/contract/catalogue.js';
export type { ApiKey, Call, KeyLimits, Package, Plan } from '../../core/console/contract/components.js';

import type { Reply } from '../../core/console/contract/index.js';

export type { Reply, RequestBody } from '../../core/console/contract/index.js';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };

export interface JsonSchema {
  type?: string | string[];
  /** English; an operation's input property may carry its Chinese text beside it (web/src/op-text.ts picks). */
  description?: string;
  'x-description-zh'?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: JsonValue[];
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  default?: JsonValue;
  items?: JsonSchema;
  format?: string;
}

export interface Operation {
  code: string;
  /** English; `text` has both languages (web/src/op-text.ts picks the UI's). */
  name: string;
  description: string;
  text?: Record<'zh' | 'en', { name: string; description: string }>;
  /** false: not configured on this server; calls are refused with 503 OPERATION_UNAVAILABLE and not charged. */
  available?: boolean;
  price: number;
  cache_ttl: number;
  timeout_ms: number;
  input: JsonSchema;
  example: Record<string, JsonValue> | null;
  response_example: JsonValue | null;
  /** The fields of `data` on success (operations.yaml `response:`), flattened; null when not declared. */
  response?: ResponseFieldRow[] | null;
  routes: string[];
}

/** The catalogue's answer (GET operations) with its operations as typed above: every page that lists them reads this. */
export interface OperationCatalogue {
  operations: Operation[];
}

/** One row of an operation's response field table (core/config/response-fields.ts fieldRows). */
export interface ResponseFieldRow {
  path: string;
  type: string;
  required: boolean;
  zh: string;
  en: string;
}

export type Me = Reply<'me'>;
