// An operation sold from two configured upstreams (alpha first, beta second) with a canary, shared by the tests of
// canary status per upstream (test/health/upstream-canary.test.ts, the console's canary card).
import { field, ID_FIELD, itemUpstream, itemYaml } from '../plugins/http/support.js';

const upstream = (id: string, priority: number) =>
  itemUpstream(
    id,
    `
        priority: ${priority}
        cost_per_call: 0.001
        timeout_ms: 500
        circuit: { failures: 5, cool_down_s: 60 }`,
    '',
    `
        result: '{ "id": body.item.id, "provider": "${id}" }'`,
  );
export const ITEM_YAML = itemYaml(
  `${ID_FIELD}${field('provider', '来源', 'Source')}`,
  `${upstream('alpha', 1)}${upstream('beta', 2)}`,
  `
    canary:
      interval: 600
      failures_to_down: 2
      samples:
        - input: { id: probe }
          assert: ["id = 'probe'"]`,
);
export const ok = (id: string) => ({ item: { id } });
