// An operation sold from two configured upstreams (alpha first, beta second) with a canary, shared by the tests of
// canary status per upstream (test/health/upstream-canary.test.ts, the console's canary card).
const upstream = (id: string, priority: number) => `
      - id: ${id}
        priority: ${priority}
        cost_per_call: 0.001
        timeout_ms: 500
        circuit: { failures: 5, cool_down_s: 60 }
        request:
          url: https://${id}.example.com/v1/items/{{ input.id }}
        result: '{ "id": body.item.id, "provider": "${id}" }'`;
export const ITEM_YAML = `
operations:
  - code: item
    price_per_call: 0.01
    timeout_ms: 2000
    input: { type: object, required: [id], properties: { id: { type: string, maxLength: 40 } } }
    response:
      id: { type: string, zh: 编号, en: Id }
      provider: { type: string, zh: 来源, en: Source }
    canary:
      interval: 600
      failures_to_down: 2
      samples:
        - input: { id: probe }
          assert: ["id = 'probe'"]
    upstreams:${upstream('alpha', 1)}${upstream('beta', 2)}
`;
export const ok = (id: string) => ({ item: { id } });
