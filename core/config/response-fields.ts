// The `response:` block of an operation in operations.yaml: the fields of `data` on success, each with its type,
// a zh and an en description and optionally an example. One declaration feeds three readers: the OpenAPI
// document (a JSON Schema per language), the console's docs page (a field table) and the contract test that
// checks every plugin's real output with Ajv. Every declared field is present unless marked `optional`, and an
// object holds only its declared fields unless marked `open` (a plugin that grows a field must declare it).

export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';

export interface ResponseField {
  type: FieldType;
  zh?: string;
  en?: string;
  /** The value may be null. */
  nullable?: boolean;
  /** The key may be absent (it is present only in some answers). */
  optional?: boolean;
  enum?: Array<string | number | boolean>;
  format?: string;
  minimum?: number;
  maximum?: number;
  example?: unknown;
  /** type object: its fields. */
  fields?: Record<string, ResponseField>;
  /** type object: may carry keys not listed. */
  open?: boolean;
  /** type array: one item. */
  items?: ResponseField;
}

export type ResponseFields = Record<string, ResponseField>;
type Json = Record<string, unknown>;
/** Which description a schema carries: one language, both (en as description, zh as x-description-zh), or none (for Ajv). */
export type DescribeAs = 'zh' | 'en' | 'both' | null;

const FIELD_NAME = '^[A-Za-z_][A-Za-z0-9_]{0,63}$';

/** Meta-schema of one field (operations-schema.ts puts these under $defs). */
function fieldMeta(describe: boolean): Json {
  return {
    type: 'object',
    additionalProperties: false,
    required: describe ? ['type', 'zh', 'en'] : ['type'],
    properties: {
      type: { enum: ['string', 'integer', 'number', 'boolean', 'object', 'array'] },
      zh: { type: 'string', minLength: 1, maxLength: 500 },
      en: { type: 'string', minLength: 1, maxLength: 500 },
      nullable: { type: 'boolean' },
      optional: { type: 'boolean' },
      enum: { type: 'array', minItems: 1, items: { type: ['string', 'number', 'boolean'] } },
      format: { enum: ['date-time', 'uri', 'date'] },
      minimum: { type: 'number' },
      maximum: { type: 'number' },
      example: {},
      fields: {
        type: 'object',
        propertyNames: { pattern: FIELD_NAME },
        additionalProperties: { $ref: '#/$defs/responseField' },
      },
      open: { type: 'boolean' },
      items: { $ref: '#/$defs/responseItem' },
    },
  };
}

export const RESPONSE_META_DEFS = { responseField: fieldMeta(true), responseItem: fieldMeta(false) };
export const RESPONSE_META = {
  type: 'object',
  minProperties: 1,
  propertyNames: { pattern: FIELD_NAME },
  additionalProperties: { $ref: '#/$defs/responseField' },
};

function describe(out: Json, f: ResponseField, lang: DescribeAs): void {
  if (lang === 'both') {
    if (f.en) out.description = f.en;
    if (f.zh) out['x-description-zh'] = f.zh;
  } else if (lang && f[lang]) out.description = f[lang];
}

/** One field as JSON Schema. */
export function fieldSchema(f: ResponseField, lang: DescribeAs): Json {
  const out: Json = { type: f.nullable ? [f.type, 'null'] : f.type };
  describe(out, f, lang);
  if (f.enum) out.enum = f.nullable ? [...f.enum, null] : f.enum;
  if (f.format) out.format = f.format;
  if (f.minimum !== undefined) out.minimum = f.minimum;
  if (f.maximum !== undefined) out.maximum = f.maximum;
  if (lang && f.example !== undefined) out.examples = [f.example];
  if (f.type === 'object') {
    const { type: _object, ...shape } = objectSchema(f.fields ?? {}, lang, f.open ?? false);
    Object.assign(out, shape);
  }
  if (f.type === 'array' && f.items) out.items = fieldSchema(f.items, lang);
  return out;
}

/** The `data` object: every field required unless optional, closed unless open. */
export function objectSchema(fields: ResponseFields, lang: DescribeAs, open = false): Json {
  const names = Object.keys(fields);
  const required = names.filter((n) => !fields[n].optional);
  return {
    type: 'object',
    properties: Object.fromEntries(names.map((n) => [n, fieldSchema(fields[n], lang)])),
    ...(required.length ? { required } : {}),
    additionalProperties: open,
  };
}

export interface FieldRow {
  /** Dotted path; array items as `[]`: author.name, traces[].time. */
  path: string;
  type: string;
  required: boolean;
  zh: string;
  en: string;
}

/** The fields flattened for a docs table, parents before children. */
export function fieldRows(fields: ResponseFields, prefix = ''): FieldRow[] {
  const rows: FieldRow[] = [];
  for (const [name, f] of Object.entries(fields)) {
    const path = prefix + name;
    const item = f.type === 'array' ? f.items : undefined;
    const type = `${f.type}${item ? `<${item.type}>` : ''}${f.enum ? ` (${f.enum.join(' | ')})` : ''}${f.nullable ? ' | null' : ''}`;
    rows.push({ path, type, required: !f.optional, zh: f.zh ?? '', en: f.en ?? '' });
    if (f.type === 'object' && f.fields) rows.push(...fieldRows(f.fields, `${path}.`));
    if (item?.type === 'object' && item.fields) rows.push(...fieldRows(item.fields, `${path}[].`));
  }
  return rows;
}
