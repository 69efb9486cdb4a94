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
import jsonata from 'jsonata';

export interface CanarySample {
  /** '' for an operation-wide sample; a platform name otherwise. */
  platform: string;
  input: Record<string, unknown>;
  /** JSONata expressions over the answer's `data`; each must be truthy. */
  assert: string[];
}

export interface CanaryConfig {
  intervalMs: number;
  failuresToDown: number;
  successesToRecover: number;
  schema: boolean;
  samples: CanarySample[];
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
}

export const DEFAULT_CANARY_INTERVAL_S = 1800;

/**
 * The block checked beyond the meta-schema: every assertion parses as JSONata, platforms are unique. Returns the
 * config or throws an Error whose message starts with the JSON pointer below `canary` that is wrong.
 */
export function parseCanary(raw: RawCanary): CanaryConfig {
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
  };
}
