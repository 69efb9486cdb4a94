// API debugger: pick an operation, fill the form generated from its input schema, pick a key, send. Shows
// status, time (browser-measured and the server's Server-Timing), deducted/remaining and the body, and the
// exact request as code in six languages. The call goes to the real /api/{code} and is billed like any other.

import { get } from '../api.js';
import { createCodeTabs } from '../code-tabs.js';
import type { ExampleRequest, Json } from '../codegen.js';
import { clear, h } from '../dom.js';
import { explainFailure } from '../error-explain.js';
import { ms, prettyJson, tokens } from '../format.js';
import { getLang, t } from '../i18n/index.js';
import { jsonView } from '../json-view.js';
import { loadMe } from '../layout.js';
import { opDescription, opName } from '../op-text.js';
import type { Route } from '../router.js';
import { link } from '../router.js';
import { savedKey, saveKey } from '../saved-key.js';
import { type SchemaForm, schemaForm } from '../schema-form.js';
import { getUser, sessionSecrets } from '../session.js';
import { operationStates, statusLine } from '../status-dot.js';
import type { OperationCatalogue } from '../types.js';
import { badge, busy, card, field, notice, pageHeader, reveal, select } from '../ui.js';
import { PLACEHOLDER_KEY } from './docs.js';

/** "total;dur=12.3, plugin;dur=4.5" -> { total: 12.3, plugin: 4.5 } */
export function parseServerTiming(header: string | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().split(';');
    const dur = params.map((p) => /^\s*dur=([\d.]+)/.exec(p)?.[1]).find(Boolean);
    if (name && dur) out[name.trim()] = Number(dur);
  }
  return out;
}

interface Envelope {
  success?: boolean;
  deducted?: number;
  remaining?: number;
  cached?: boolean;
  request_id?: string;
  error?: { code: string; message: string };
}

function rawBody(parsed: Envelope | undefined, text: string): HTMLElement {
  return parsed
    ? jsonView(prettyJson(parsed), 'dbg-body')
    : h('pre', { class: 'code', attrs: { 'data-testid': 'dbg-body' } }, text);
}

function metric(label: string, value: string, testId: string): HTMLElement {
  return h(
    'div',
    { class: 'metric' },
    h('span', { class: 'metric-label' }, label),
    h('span', { class: 'metric-value', attrs: { 'data-testid': testId } }, value),
  );
}

export async function renderDebugger(main: HTMLElement, route: Route): Promise<void> {
  const [ops, states] = await Promise.all([
    get<OperationCatalogue>('operations').then((r) => r.operations),
    operationStates(),
  ]);
  if (ops.length === 0) {
    main.append(pageHeader(t('debugger.title')), notice('info', t('debugger.noOps')));
    return;
  }
  const secrets = sessionSecrets();
  let op = ops.find((o) => o.code === route.query.get('op')) ?? ops[0];
  let form: SchemaForm;
  const opSelect = select(
    'op',
    ops.map((o) => [o.code, `${opName(o)} (${o.code})`]),
    op.code,
  );
  opSelect.setAttribute('data-testid', 'dbg-op');
  const preKey = route.query.get('key');
  const userId = getUser()?.id ?? 0;
  const saved = savedKey(userId);
  const keySelect = select(
    'key',
    [
      ...(saved ? [['saved', t('debugger.savedKey', { label: saved.label })] as [string, string]] : []),
      ...secrets.map(
        (s) => [`id:${s.id}`, t('debugger.sessionKey', { name: s.name, prefix: s.prefix })] as [string, string],
      ),
      ['paste', t('debugger.pasteKey')],
    ],
    preKey && secrets.some((s) => String(s.id) === preKey)
      ? `id:${preKey}`
      : saved
        ? 'saved'
        : secrets.length
          ? `id:${secrets[0].id}`
          : 'paste',
  );
  keySelect.setAttribute('data-testid', 'dbg-key');
  const secretInput = h('input', {
    attrs: {
      type: 'password',
      name: 'secret',
      autocomplete: 'off',
      spellcheck: 'false',
      placeholder: 'sk_...',
      'data-testid': 'dbg-secret',
    },
  });
  const secretField = field(t('debugger.secret'), secretInput, t('debugger.secretHint'));
  const opInfo = h('div', { class: 'op-info' });
  const formSlot = h('div');
  const result = h('div', { class: 'result', attrs: { 'data-testid': 'dbg-result' } });

  const currentKey = (): string => {
    const v = keySelect.value;
    if (v === 'saved') return saved?.secret ?? '';
    if (v.startsWith('id:')) return secrets.find((s) => `id:${s.id}` === v)?.secret ?? '';
    return secretInput.value.trim();
  };
  const request = (): ExampleRequest => ({
    url: `${location.origin}/api/${op.code}`,
    apiKey: currentKey() || PLACEHOLDER_KEY,
    body: form.values(),
  });
  const codes = createCodeTabs({ url: `${location.origin}/api/${op.code}`, apiKey: PLACEHOLDER_KEY, body: {} });
  const sync = (): void => {
    secretField.hidden = keySelect.value !== 'paste';
    codes.update(request());
  };
  /** Bumped on every change of operation: an answer belongs to the operation it was sent for. */
  let picked = 0;
  const idle = (): HTMLElement => h('p', { class: 'muted' }, t('debugger.idle'));
  const pickOp = (): void => {
    op = ops.find((o) => o.code === opSelect.value) ?? ops[0];
    picked++;
    // The previous operation's answer, timing and charge say nothing about this one.
    clear(result, idle());
    form = schemaForm(op.input, op.example as { [k: string]: Json } | null, sync);
    clear(
      opInfo,
      h('p', null, opDescription(op)),
      op.available === false ? notice('warn', t('docs.unavailableNote')) : '',
      h(
        'p',
        { class: 'small' },
        statusLine(op.code, states),
        ' ',
        badge(`${tokens(op.price)} TOKEN / ${t('docs.perCallShort')}`, 'info'),
        ' ',
        link(`docs/${op.code}`, t('debugger.readDocs')),
      ),
    );
    clear(formSlot, form.el);
    history.replaceState(null, '', `/console/debugger?op=${encodeURIComponent(op.code)}`);
    sync();
  };
  opSelect.addEventListener('change', pickOp);
  keySelect.addEventListener('change', sync);
  secretInput.addEventListener('input', sync);

  const send = async (): Promise<void> => {
    const key = currentKey();
    if (!key) {
      clear(result, notice('warn', t('debugger.needKey'), ' ', link('keys', t('debugger.makeKey'))));
      return;
    }
    // The key picked here is the one offered first next time, in every tab of this browser.
    if (keySelect.value !== 'saved') saveKey(userId, key);
    const body = form.values();
    const sentFor = picked;
    clear(result, h('p', { class: 'muted' }, t('debugger.sending')));
    const started = performance.now();
    let res: Response;
    let text: string;
    try {
      res = await fetch(`/api/${encodeURIComponent(op.code)}`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json', 'Accept-Language': getLang() },
        body: JSON.stringify(body),
        credentials: 'omit',
      });
      text = await res.text();
    } catch (err) {
      if (sentFor !== picked) return;
      clear(result, notice('err', t('debugger.networkError'), ' ', err instanceof Error ? err.message : String(err)));
      reveal(result);
      return;
    }
    const elapsed = performance.now() - started;
    // The operation was changed while this call was on its way: its answer is not shown under the new one.
    if (sentFor !== picked) return void loadMe(true).catch(() => undefined);
    const timing = parseServerTiming(res.headers.get('server-timing'));
    let parsed: Envelope | undefined;
    try {
      parsed = JSON.parse(text) as Envelope;
    } catch {
      parsed = undefined;
    }
    clear(
      result,
      h(
        'div',
        { class: 'metrics' },
        h(
          'div',
          { class: 'metric' },
          h('span', { class: 'metric-label' }, t('debugger.status')),
          h(
            'span',
            { class: 'metric-value' },
            badge(String(res.status), res.ok ? 'ok' : 'err'),
            ' ',
            parsed?.error?.code ? h('code', null, parsed.error.code) : null,
          ),
          h('span', { class: 'hidden', attrs: { 'data-testid': 'dbg-status' } }, String(res.status)),
        ),
        metric(t('debugger.browserTime'), ms(elapsed), 'dbg-browser-ms'),
        metric(t('debugger.serverTime'), timing.total !== undefined ? ms(timing.total) : '—', 'dbg-server-ms'),
        metric(
          t('debugger.pluginTime'),
          timing.plugin !== undefined ? ms(timing.plugin) : timing.total !== undefined ? t('debugger.noPlugin') : '—',
          'dbg-plugin-ms',
        ),
        metric(t('debugger.deducted'), parsed?.deducted !== undefined ? tokens(parsed.deducted) : '—', 'dbg-deducted'),
        metric(
          t('debugger.remaining'),
          parsed?.remaining !== undefined ? tokens(parsed.remaining) : '—',
          'dbg-remaining',
        ),
        metric(t('debugger.cached'), parsed?.cached ? t('common.yes') : t('common.no'), 'dbg-cached'),
        metric(t('debugger.requestId'), parsed?.request_id ?? res.headers.get('x-request-id') ?? '—', 'dbg-request-id'),
      ),
      // A success shows its body; a failure is explained in words, its raw body one click away.
      res.ok ? rawBody(parsed, text) : explainFailure(res.status, parsed, rawBody(parsed, text)),
    );
    // On a phone the response card is below the form: bring the answer into view.
    reveal(result);
    void loadMe(true).catch(() => undefined);
  };
  const sendBtn: HTMLButtonElement = h(
    'button',
    { class: 'btn btn-primary', attrs: { type: 'submit', 'data-testid': 'dbg-send' } },
    t('debugger.send'),
  );
  const reqForm = h(
    'form',
    { on: { submit: (ev) => (ev.preventDefault(), void busy(sendBtn, send)) } },
    field(t('debugger.operation'), opSelect),
    opInfo,
    h('h3', { class: 'sub' }, t('debugger.params')),
    formSlot,
    h('h3', { class: 'sub' }, t('debugger.key')),
    field(
      t('debugger.keyPick'),
      keySelect,
      secrets.length || saved ? t('debugger.keyRemembered') : t('debugger.noSessionKey'),
    ),
    secretField,
    h('div', { class: 'form-actions' }, sendBtn),
  );
  main.append(
    pageHeader(t('debugger.title'), t('debugger.subtitle')),
    h('div', { class: 'grid-2 debugger' }, card(t('debugger.request'), reqForm), card(t('debugger.response'), result)),
    card(t('debugger.code'), h('p', { class: 'muted small' }, t('debugger.codeNote')), codes.el),
  );
  pickOp();
}
