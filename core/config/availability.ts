// Is an operation configured enough to sell? operations.yaml `requires:` lists groups of options, any one of
// which must be fully set (kuaid: Kuaidi100's pair OR Kdniao's pair). Checked once per config load, so an
// unconfigured operation is refused before billing and shown as unavailable, and the operator is told exactly
// which settings are missing (env variable names stay on the operator's side: log and admin page only).
export interface Availability {
  available: boolean;
  /** One entry per `requires` group that is not complete: the env variables (or options) still to set. */
  missing: string[][];
}

const PLACEHOLDER = /\$\{([A-Z_][A-Z0-9_]*)(?::-[^}]*)?\}/;

/** A usable option value: not empty, not a `${VAR}` left unsubstituted. */
export function isOptionSet(v: unknown): boolean {
  if (typeof v === 'number' || typeof v === 'boolean') return true;
  if (typeof v !== 'string') return false;
  const t = v.trim();
  return t !== '' && !/^\$\{[^}]*\}$/.test(t);
}

/** The name an operator recognises: the env variable the option reads, else `options.NAME`. */
function settingName(option: string, raw: Record<string, unknown>): string {
  const text = raw[option];
  const m = typeof text === 'string' ? PLACEHOLDER.exec(text) : null;
  return m ? m[1] : `options.${option}`;
}

export function availabilityOf(
  requires: string[][] | undefined,
  rawOptions: Record<string, unknown>,
  options: Record<string, unknown>,
): Availability {
  if (!requires || requires.length === 0) return { available: true, missing: [] };
  const missing = requires.map((group) =>
    group.filter((o) => !isOptionSet(options[o])).map((o) => settingName(o, rawOptions)),
  );
  const available = missing.some((m) => m.length === 0);
  return { available, missing: available ? [] : missing };
}

/** For the log and the admin page: "set KUAIDI100_CUSTOMER and KUAIDI100_KEY, or KDNIAO_BUSINESS_ID and KDNIAO_API_KEY". */
export function missingSettingsText(a: Availability): string {
  return a.available ? '' : `set ${a.missing.map((g) => g.join(' and ')).join(', or ')}`;
}
