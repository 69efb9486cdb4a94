// Operations as MCP tools: name = the operation code, title and description in zh and en with the price, the
// operation's own input JSON Schema, and its declared `response:` fields as outputSchema. Built from the live
// registry on every tools/list (a handful of operations), so a reload of operations.yaml shows at once.

import type { KeyIdentity } from '../accounts/api-keys.js';
import { objectSchema } from '../config/response-fields.js';
import { toToken } from '../kernel/money.js';
import type { Operation, Registry } from '../registry/registry.js';

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

/** The price line an agent (and the person approving its calls) reads before it spends anything. */
function priceLine(op: Operation): string {
  const price = toToken(op.priceMicro);
  if (price === 0) return '价格：免费。Price: free.';
  return `价格：每次成功调用 ${price} TOKEN，失败不扣费；套餐额度内免费。Price: ${price} TOKEN per successful call; failed calls are free; free within a plan's quota.`;
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

export function toolOf(op: Operation): ToolDefinition {
  const { zh, en } = op.text;
  const title = zh.name === en.name ? en.name : `${zh.name} ${en.name}`;
  const description = [zh.description, en.description].filter((d, i, all) => d && all.indexOf(d) === i).join('\n');
  const inputSchema = inputSchemaOf(op);
  // The operation's example call, in the schema's own keyword, so a model sees a valid argument object.
  if (op.example && inputSchema.examples === undefined) inputSchema.examples = [op.example];
  const tool: ToolDefinition = { name: op.code, title, description: `${description}\n${priceLine(op)}`, inputSchema };
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
