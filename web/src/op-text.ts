// An operation's name and description in the UI language (operations.yaml declares both, once).
import { getLang } from './i18n/index.js';
import type { Operation } from './types.js';

export function opName(o: Pick<Operation, 'name' | 'text'>): string {
  return o.text?.[getLang()]?.name ?? o.name;
}

export function opDescription(o: Pick<Operation, 'description' | 'text'>): string {
  return o.text?.[getLang()]?.description ?? o.description;
}
