// Operations as MCP tools: name = the operation code, title and description with the price in the caller's
// language (Accept-Language, English otherwise: one language, not both, so a model reads half the tokens), the
// operation's own input JSON Schema, its declared `response:` fields as outputSchema, and annotations for clients
// that gate tool calls. Built from the live registry on every tools/list (a handful of operations), so a reload
// of operations.yaml shows at once.

import type { KeyIdentity } from '../accounts/api-keys.js';
import { objectSchema } from '../config/response-fields.js';
import type { TextLocale } from '../http/errors.js';
import { toToken } from '../kernel/money.js';
import type { Operation, Registry } from '../registry/registry.js';

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: { title: string; readOnlyHint: true; destructiveHint: false; openWorldHint: boolean };
}

/** What a tool list is built for: the caller's language, and the facts that are not in the operation itself. */
export interface ToolContext {
  locale: TextLocale;
  /** Operation codes some plan of operations.yaml includes (free within its quota). */
  planCodes: ReadonlySet<string>;
  /** Whether the operation's plugin may reach the internet (its manifest lists hosts). */
  reachesOut: (op: Operation) => boolean;
}

/** The price line an agent (and the person approving its calls) reads before it spends anything. */
function priceLine(op: Operation, c: ToolContext): string {
  const price = toToken(op.priceMicro);
  const inPlan = c.planCodes.has(op.code);
  if (c.locale === 'zh') {
    if (price === 0) return '价格：免费。';
    return `价格：每次成功调用 ${price} TOKEN，失败不扣费${inPlan ? '；套餐额度内免费' : ''}。`;
  }
  if (price === 0) return 'Price: free.';
  return `Price: ${price} TOKEN per successful call; failed calls are free${inPlan ? "; free within a plan's quota" : ''}.`;
}

export function toolContext(
  registry: Registry,
  locale: TextLocale,
  reachesOut: ToolContext['reachesOut'],
): ToolContext {
  return { locale, planCodes: new Set(registry.config.plans.flatMap((p) => p.codes)), reachesOut };
}

/** Removes `additionalProperties: false` at every level: a field added to a result must never make a client
 * reject a result the caller has already paid for. The declared fields stay required and typed. */
function openUp(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(openUp);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) if (!(k === 'additionalProperties' && v === false)) out[k] = openUp(v);
  return out;
}

/**
 * outputSchema describes structuredContent (`data`), from the operation's `response:` block with English field
 * descriptions. Operations without one are listed without it; their result is still in the text content.
 */
function outputSchemaOf(op: Operation): Record<string, unknown> | undefined {
  if (!op.response) return undefined;
  return openUp(objectSchema(op.response, 'en')) as Record<string, unknown>;
}

/** The operation's input schema with its fields described in English only (the Chinese `x-description-zh` the
 * console reads is left out): the tool's own description already carries both languages. */
function inputSchemaOf(op: Operation): Record<string, unknown> {
  const schema: Record<string, unknown> = { ...op.input };
  if (op.input.properties) {
    schema.properties = Object.fromEntries(
      Object.entries(op.input.properties).map(([name, { 'x-description-zh': _zh, ...rest }]) => [name, rest]),
    );
  }
  return schema;
}

export function toolOf(op: Operation, c: ToolContext): ToolDefinition {
  const { name: title, description } = op.text[c.locale];
  const inputSchema = inputSchemaOf(op);
  // The operation's example call, in the schema's own keyword, so a model sees a valid argument object.
  if (op.example && inputSchema.examples === undefined) inputSchema.examples = [op.example];
  const tool: ToolDefinition = {
    name: op.code,
    title,
    description: description ? `${description}\n${priceLine(op, c)}` : priceLine(op, c),
    inputSchema,
    // A lookup changes nothing but the caller's balance; openWorld when the plugin talks to an outside service.
    annotations: { title, readOnlyHint: true, destructiveHint: false, openWorldHint: c.reachesOut(op) },
  };
  const outputSchema = outputSchemaOf(op);
  if (outputSchema) tool.outputSchema = outputSchema;
  return tool;
}

/** The operations this key may call and this server can serve now (an unconfigured one would only refuse). */
export function callableOperations(registry: Registry, identity: KeyIdentity): Operation[] {
  const allowed = identity.allowedCodes;
  return registry
    .list()
    .filter((op) => op.availability.available && (!allowed || allowed.length === 0 || allowed.includes(op.code)));
}
