// An operation's name and description, and its input parameters' descriptions, in the UI language
// (operations.yaml declares both, once).
import { getLang, type Lang } from './i18n/index.js';
import type { JsonSchema, Operation } from './types.js';

export function opName(o: Pick<Operation, 'name' | 'text'>): string {
  return o.text?.[getLang()]?.name ?? o.name;
}

export function opDescription(o: Pick<Operation, 'description' | 'text'>): string {
  return o.text?.[getLang()]?.description ?? o.description;
}

/** An input parameter's hint: the Chinese text (`x-description-zh`) in the Chinese UI when the schema has one. */
export function paramText(s: Pick<JsonSchema, 'description' | 'x-description-zh'>, lang: Lang = getLang()): string {
  return (lang === 'zh' ? s['x-description-zh'] : undefined) ?? s.description ?? '';
}
