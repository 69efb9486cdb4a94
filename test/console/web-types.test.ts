// The browser console's types (web/src/types.ts) checked against the response schemas /openapi.json publishes
// (core/console/contract/components.ts): the same field names, and null allowed on one side exactly when
// on the other. Read with the TypeScript parser, so a field renamed on either side fails here.

import { readFileSync } from 'node:fs';
import t from 'tap';
import ts from 'typescript';
import { CONSOLE_COMPONENTS as COMPONENTS } from '../../core/console/contract/components.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema nodes are walked as plain JSON
type Schema = Record<string, any>;
const CONSOLE_COMPONENTS: Record<string, Schema> = COMPONENTS;
interface Member {
  optional: boolean;
  nullable: boolean;
}

const source = ts.createSourceFile('types.ts', readFileSync('web/src/types.ts', 'utf8'), ts.ScriptTarget.ES2022, true);
const interfaces = new Map<string, Map<string, Member>>();
source.forEachChild((node) => {
  if (!ts.isInterfaceDeclaration(node)) return;
  const members = new Map<string, Member>();
  for (const m of node.members) {
    if (!ts.isPropertySignature(m) || !m.type) continue;
    const text = m.type.getText(source);
    // Nullable when the top-level union has a null member (not a null nested inside a generic or object type).
    const parts = ts.isUnionTypeNode(m.type) ? m.type.types.map((x) => x.getText(source)) : [text];
    members.set(m.name.getText(source), { optional: m.questionToken !== undefined, nullable: parts.includes('null') });
  }
  interfaces.set(node.name.text, members);
});

/** Properties of a schema, following one allOf level (the components use allOf for extensions). */
function properties(s: Schema): Record<string, Schema> {
  if (s.allOf)
    return Object.assign(
      {},
      ...s.allOf.map((x: Schema) => (x.$ref ? properties(CONSOLE_COMPONENTS[x.$ref.split('/').pop()]) : properties(x))),
    );
  return s.properties ?? {};
}
function nullable(s: Schema): boolean {
  return (Array.isArray(s.type) && s.type.includes('null')) || (s.oneOf ?? []).some((x: Schema) => x.type === 'null');
}

const PAIRS: Array<[string, Schema]> = [['Operation', CONSOLE_COMPONENTS.Operation]];

for (const [name, schema] of PAIRS) {
  t.test(`web/src/types.ts ${name} matches the published schema`, async (t) => {
    const members = interfaces.get(name);
    t.ok(members, `interface ${name} exists`);
    if (!members) return;
    const props = properties(schema);
    const required = new Set<string>(schema.required ?? []);
    for (const [field, m] of members) {
      t.ok(field in props, `${name}.${field} is published`);
      if (field in props)
        t.equal(m.nullable, nullable(props[field]), `${name}.${field}: null allowed on both sides or neither`);
    }
    for (const field of Object.keys(props)) {
      if (required.has(field)) t.ok(members.has(field), `${name}.${field} (always sent) is typed in the browser`);
    }
  });
}
