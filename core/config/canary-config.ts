// The `canary:` block of an operation in operations.yaml: sample inputs the gateway calls on its own (through the
// whole pipeline, on a system account, never billed) to learn that an upstream broke before a customer does, and
// what a good answer must satisfy. Each sample may name a `platform`: its status is kept on its own, so one
// platform of a multi-platform operation (jiexi) going down never marks the others down.
//
//   canary:
//     interval: 1800            # seconds between probes when live traffic showed no success meanwhile
//     failures_to_down: 2       # consecutive failures before "down" (the first failure is "degraded")
//     successes_to_recover: 1   # consecutive successes before "ok" again
//     schema: true              # the answer must match the operation's `response:` fields (default true)
//     samples:
//       - platform: douyin      # optional; [a-z][a-z0-9_]*
//         input: { url: "https://v.douyin.com/..." }
//         assert: ["platform = 'douyin'", "$exists(url) or type = 'images'"]   # JSONata over `data`, each truthy
//     providers:                # the plugin's own providers (kuaid), each probed alone too: id -> its options
//       kuaidi100: [kuaidi100_customer, kuaidi100_key]
//
// A plugin that fails over between providers of its own answers as long as one works, so the failover probe never
// sees a broken provider behind a working one. Each provider listed under `providers` whose options are all set is,
// when at least two are, probed alone as well (host.pin, core/sandbox/contract.ts), with a status of its own under `provider:<id>`.
import jsonata from 'jsonata';
import { isOptionSet } from './availability.js';

export interface CanarySample {
  /** '' for an operation-wide sample; a platform name otherwise. */
  platform: string;
  input: Record<string, unknown>;
  /** JSONata expressions over the answer's `data`; each must be truthy. */
  assert: string[];
}

export interface CanaryProvider {
  id: string;
  /** The operation's options that must all be set for the provider to be used (its credentials). */
  options: string[];
}

export interface CanaryConfig {
  intervalMs: number;
  failuresToDown: number;
  successesToRecover: number;
  schema: boolean;
  samples: CanarySample[];
  /** The plugin's own providers, each probed pinned to it when configured; [] when none are listed. */
  providers: CanaryProvider[];
}

const PLATFORM = '^[a-z][a-z0-9_]{0,31}$';

/** Meta-schema of the block (operations-schema.ts). */
export const CANARY_META = {
  type: 'object',
  additionalProperties: false,
  required: ['samples'],
  properties: {
    // At least a minute (an upstream is not a heartbeat), at most a day.
    interval: { type: 'integer', minimum: 60, maximum: 86_400 },
    failures_to_down: { type: 'integer', minimum: 1, maximum: 20 },
    successes_to_recover: { type: 'integer', minimum: 1, maximum: 20 },
    schema: { type: 'boolean' },
    providers: {
      type: 'object',
      maxProperties: 10,
      propertyNames: { pattern: PLATFORM },
      additionalProperties: {
        type: 'array',
        minItems: 1,
        maxItems: 10,
        items: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' },
      },
    },
    samples: {
      type: 'array',
      minItems: 1,
      maxItems: 10,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['input'],
        properties: {
          platform: { type: 'string', pattern: PLATFORM },
          input: { type: 'object' },
          assert: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 500 } },
        },
      },
    },
  },
} as const;

export interface RawCanary {
  interval?: number;
  failures_to_down?: number;
  successes_to_recover?: number;
  schema?: boolean;
  samples: Array<{ platform?: string; input: Record<string, unknown>; assert?: string[] }>;
  providers?: Record<string, string[]>;
}

export const DEFAULT_CANARY_INTERVAL_S = 1800;

/**
 * The block checked beyond the meta-schema: every assertion parses as JSONata, platforms are unique, a provider
 * names only options the operation has (`options`: their names). Returns the config or throws an Error whose
 * message starts with the JSON pointer below `canary` that is wrong.
 */
export function parseCanary(raw: RawCanary, options: readonly string[] = []): CanaryConfig {
  for (const [id, names] of Object.entries(raw.providers ?? {})) {
    const unknown = names.find((n) => !options.includes(n));
    if (unknown !== undefined) throw new Error(`/providers/${id}: "${unknown}" is not one of the operation's options`);
  }
  const seen = new Set<string>();
  const samples = raw.samples.map((s, i): CanarySample => {
    const platform = s.platform ?? '';
    if (seen.has(platform))
      throw new Error(`/samples/${i}/platform: ${platform ? `platform "${platform}"` : 'an unnamed sample'} twice`);
    seen.add(platform);
    (s.assert ?? []).forEach((expr, j) => {
      try {
        jsonata(expr);
      } catch (err) {
        throw new Error(`/samples/${i}/assert/${j}: not a JSONata expression: ${(err as Error).message}`);
      }
    });
    return { platform, input: s.input, assert: s.assert ?? [] };
  });
  return {
    intervalMs: (raw.interval ?? DEFAULT_CANARY_INTERVAL_S) * 1000,
    failuresToDown: raw.failures_to_down ?? 2,
    successesToRecover: raw.successes_to_recover ?? 1,
    schema: raw.schema ?? true,
    samples,
    providers: Object.entries(raw.providers ?? {}).map(([id, options]) => ({ id, options })),
  };
}

type WithCanary = { options: Record<string, unknown>; canary: CanaryConfig | null };

/** The providers of `canary.providers` whose options are all set (with ${ENV} substituted). */
export function usableProviders(op: WithCanary): string[] {
  return (op.canary?.providers ?? [])
    .filter((p) => p.options.every((o) => isOptionSet(op.options[o])))
    .map((p) => p.id);
}

/**
 * The providers probed alone: the usable ones when there are at least two. With one, the failover probe already
 * asks exactly it, and a pinned probe would only pay for the same query twice.
 */
export function probedProviders(op: WithCanary): string[] {
  const usable = usableProviders(op);
  return usable.length > 1 ? usable : [];
}

/**
 * The status key (the second key of operation_status) of one of the plugin's own providers: `provider:<id>`, or
 * `<platform>|provider:<id>` for a sample with a platform (as `upstream:<id>` is for a configured upstream).
 */
export const providerSubject = (platform: string, id: string): string =>
  platform ? `${platform}|provider:${id}` : `provider:${id}`;
