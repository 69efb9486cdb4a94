// A form generated from an operation's input JSON Schema: one control per property, required marks, the
// schema's descriptions (in the UI language) and constraints as hints, and the operation's example filled in.

import type { Json } from './codegen.js';
import { h } from './dom.js';
import { getLang, t } from './i18n/index.js';
import { paramText } from './param-text.js';
import type { JsonSchema } from './types.js';

export interface SchemaForm {
  el: HTMLElement;
  values(): { [k: string]: Json };
}

export function typeOf(s: JsonSchema): string {
  if (s.enum) return 'enum';
  const ty = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  return ty ?? 'string';
}

/** Required names: `required`, plus a note when the schema asks for one of several (oneOf/anyOf of required). */
export function requiredInfo(schema: JsonSchema): { required: Set<string>; oneOf: string[][] } {
  const groups = [...(schema.oneOf ?? []), ...(schema.anyOf ?? [])]
    .map((s) => s.required ?? [])
    .filter((r) => r.length > 0);
  return { required: new Set(schema.required ?? []), oneOf: groups };
}

export function constraintText(s: JsonSchema): string {
  const out: string[] = [];
  // In words of the page's language: "minLength 6" was the schema's English keyword inside a Chinese hint. A
  // minimum of one character says only "not empty", which the required mark already says.
  if (s.minLength !== undefined && s.minLength > 1) out.push(t('schema.minLength', { n: s.minLength }));
  if (s.maxLength !== undefined) out.push(t('schema.maxLength', { n: s.maxLength }));
  if (s.minimum !== undefined) out.push(`≥ ${s.minimum}`);
  if (s.maximum !== undefined) out.push(`≤ ${s.maximum}`);
  if (s.pattern) out.push(`/${s.pattern}/`);
  if (s.enum) out.push(s.enum.map((v) => JSON.stringify(v)).join(' | '));
  return out.join(' · ');
}

function control(name: string, s: JsonSchema, example: Json | undefined, required: boolean): HTMLElement {
  const id = `p-${name}`;
  const ty = typeOf(s);
  const initial = example ?? s.default;
  if (ty === 'enum') {
    const opts = (s.enum ?? []).map((v) =>
      h(
        'option',
        { attrs: { value: JSON.stringify(v), selected: JSON.stringify(v) === JSON.stringify(initial) } },
        String(v),
      ),
    );
    return h(
      'select',
      { attrs: { id, name, 'data-type': 'enum' } },
      required ? null : h('option', { attrs: { value: '' } }, '—'),
      opts,
    );
  }
  if (ty === 'boolean')
    return h('input', { attrs: { id, name, type: 'checkbox', 'data-type': 'boolean' }, checked: initial === true });
  const value =
    initial === undefined || initial === null
      ? ''
      : typeof initial === 'object'
        ? JSON.stringify(initial)
        : String(initial);
  if (ty === 'integer' || ty === 'number')
    return h('input', {
      attrs: {
        id,
        name,
        type: 'number',
        step: ty === 'integer' ? 1 : 'any',
        'data-type': ty,
        min: s.minimum,
        max: s.maximum,
      },
      value,
    });
  if (ty === 'object' || ty === 'array')
    return h('textarea', { attrs: { id, name, rows: 3, 'data-type': 'json', spellcheck: 'false' }, value });
  const long = (s.maxLength ?? 0) > 200;
  if (long)
    return h('textarea', {
      attrs: { id, name, rows: 2, 'data-type': 'string', maxlength: s.maxLength, spellcheck: 'false' },
      value,
    });
  return h('input', {
    attrs: {
      id,
      name,
      type: 'text',
      'data-type': 'string',
      maxlength: s.maxLength,
      autocomplete: 'off',
      spellcheck: 'false',
    },
    value,
  });
}

function readControl(el: Element): Json | undefined {
  const kind = el.getAttribute('data-type');
  if (el instanceof HTMLInputElement && kind === 'boolean') return el.checked;
  if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement))
    return undefined;
  const raw = el.value;
  if (raw === '') return undefined; // empty fields are left out, so optional parameters stay optional
  if (kind === 'integer' || kind === 'number') return Number(raw);
  if (kind === 'enum') return JSON.parse(raw) as Json;
  if (kind === 'json') {
    try {
      return JSON.parse(raw) as Json;
    } catch {
      return raw; // sent as typed: the server's validation explains what is wrong
    }
  }
  return raw;
}

export function schemaForm(schema: JsonSchema, example: { [k: string]: Json } | null, onInput: () => void): SchemaForm {
  const props = schema.properties ?? {};
  const { required, oneOf } = requiredInfo(schema);
  const rows = Object.entries(props).map(([name, s]) => {
    const req = required.has(name);
    const ctl = control(name, s, example?.[name], req);
    const hint = [paramText(s, getLang()), constraintText(s)].filter(Boolean).join(' · ');
    return h(
      'div',
      { class: ctl instanceof HTMLInputElement && ctl.type === 'checkbox' ? 'field field-check' : 'field' },
      h(
        'label',
        { class: 'field-label', attrs: { for: ctl.id } },
        h('code', null, name),
        req ? h('span', { class: 'req', attrs: { title: t('common.required') } }, ' *') : null,
        h('span', { class: 'type' }, typeOf(s)),
      ),
      ctl,
      hint ? h('span', { class: 'hint' }, hint) : null,
    );
  });
  const form = h(
    'div',
    { class: 'schema-form', on: { input: onInput, change: onInput } },
    rows.length ? rows : h('p', { class: 'muted' }, t('debugger.noParams')),
    oneOf.length
      ? h('p', { class: 'hint' }, t('docs.oneOf', { groups: oneOf.map((g) => g.join(' + ')).join(' / ') }))
      : null,
  );
  return {
    el: form,
    values() {
      const out: { [k: string]: Json } = {};
      for (const el of form.querySelectorAll('[data-type]')) {
        const name = el.getAttribute('name');
        const v = readControl(el);
        if (name && v !== undefined) out[name] = v;
      }
      return out;
    },
  };
}
