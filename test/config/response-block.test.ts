// operations.yaml `response:`: the block is validated at load, response_example must match it, and the loaded
// config carries it for the OpenAPI document, the docs page and the contract test.
import t from 'tap';
import { parseOperationsConfig } from '../../core/config/operations-loader.js';
import { fieldRows, objectSchema } from '../../core/config/response-fields.js';

const yaml = (response: string, example = ''): string => `operations:
  - code: demo
    plugin: echo
    price_per_call: 0.01
    input: { type: object, properties: { q: { type: string } } }
${example}
    response:
${response}
`;
const ok = `      city: { type: string, nullable: true, zh: 城市, en: City }
      traces:
        type: array
        zh: 轨迹
        en: Trail
        items: { type: object, fields: { time: { type: string, format: date-time, zh: 时间, en: Time } } }
      extra: { type: integer, optional: true, minimum: 0, zh: 附加, en: Extra }`;

t.test('a valid block loads and becomes a closed JSON Schema and a field table', async (t) => {
  const op = parseOperationsConfig(
    'operations.yaml',
    yaml(ok, '    response_example: { city: null, traces: [{ time: "2024-06-10T09:00:00+08:00" }] }'),
  ).operations[0];
  t.same(objectSchema(op.response ?? {}, null), {
    type: 'object',
    properties: {
      city: { type: ['string', 'null'] },
      traces: {
        type: 'array',
        items: {
          type: 'object',
          properties: { time: { type: 'string', format: 'date-time' } },
          required: ['time'],
          additionalProperties: false,
        },
      },
      extra: { type: 'integer', minimum: 0 },
    },
    required: ['city', 'traces'],
    additionalProperties: false,
  });
  t.same(
    fieldRows(op.response ?? {}).map((r) => [r.path, r.type, r.required]),
    [
      ['city', 'string | null', true],
      ['traces', 'array<object>', true],
      ['traces[].time', 'string', true],
      ['extra', 'integer', false],
    ],
  );
  t.equal(
    parseOperationsConfig('operations.yaml', yaml(ok).replace(/ {4}response:\n[\s\S]*$/, '')).operations[0].response,
    null,
    'the block is optional',
  );
});

t.test('a malformed block or a mismatched example refuses the file, naming the place', async (t) => {
  t.throws(() => parseOperationsConfig('operations.yaml', yaml('      city: { type: string, zh: 城市 }')), {
    message: /operation "demo" at \/operations\/0\/response\/city: must have required property 'en'/,
  });
  t.throws(() => parseOperationsConfig('operations.yaml', yaml('      city: { type: text, zh: 城市, en: City }')), {
    message: /\/response\/city\/type: must be equal to one of the allowed values/,
  });
  t.throws(() => parseOperationsConfig('operations.yaml', yaml(ok, '    response_example: { city: 北京 }')), {
    message: /response_example: does not match response: \/ must have required property 'traces'/,
  });
  t.throws(() => parseOperationsConfig('operations.yaml', yaml(ok, '    response_example: { city: 1, traces: [] }')), {
    message: /\/city must be string,null/,
  });
  t.throws(
    () =>
      parseOperationsConfig(
        'operations.yaml',
        yaml(ok, '    response_example: { city: null, traces: [], surprise: 1 }'),
      ),
    { message: /must NOT have additional properties \(surprise\)/ },
  );
});
