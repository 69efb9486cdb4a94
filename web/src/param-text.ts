// An input parameter's description in a given language. No DOM here (the caller passes the UI language), so the
// console test checks it under Node against the live catalogue.
import type { Lang } from './i18n/dicts.js';

/** The schema's Chinese text (`x-description-zh`, from operations.yaml) for zh when it has one, else its description. */
export function paramText(s: { description?: string; 'x-description-zh'?: string }, lang: Lang): string {
  return (lang === 'zh' ? s['x-description-zh'] : undefined) ?? s.description ?? '';
}
