// Operations as MCP tools: name = the operation code, title and description in zh and en with the price, the
// operation's own input JSON Schema, and its declared response schema as outputSchema. Built from the live
// registry on every tools/list (a handful of operations), so a reload of operations.yaml shows at once.
import type { Operation, Registry } from '../registry/registry.js';
import type { KeyIdentity } from '../accounts/api-keys.js';
import { toToken } from '../kernel/money.js';

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

/**
 * outputSchema describes structuredContent, which MCP requires to be an object: only an object schema of `data`
 * qualifies. Operations without a declared one are listed without it (their result is still in the text content).
 */
function outputSchemaOf(op: Operation): Record<string, unknown> | undefined {
  const schema = (op as Operation & { response?: unknown }).response;
  if (typeof schema !== 'object' || schema === null || (schema as { type?: unknown }).type !== 'object') return undefined;
  return schema as Record<string, unknown>;
}

export function toolOf(op: Operation): ToolDefinition {
  const { zh, en } = op.text;
  const title = zh.name === en.name ? en.name : `${zh.name} ${en.name}`;
  const description = [zh.description, en.description].filter((d, i, all) => d && all.indexOf(d) === i).join('\n');
  const inputSchema: Record<string, unknown> = { ...op.input };
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
  return registry.list().filter((op) => op.availability.available && (!allowed || allowed.length === 0 || allowed.includes(op.code)));
}
