// plugin.json loading. A manifest is the plugin's whole grant of power (hosts, time, memory, files), so it is
// validated strictly at load: a typo such as `allowed_hosts` must fail loudly, not silently grant nothing.
import { readFile, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import type { PluginManifest } from './contract.js';

export const MANIFEST_FILE = 'plugin.json';

const HOST_PATTERN =
  '^(\\*\\.)?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$';

export const manifestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'version', 'allow_hosts', 'timeout_ms', 'memory_mb'],
  properties: {
    $schema: { type: 'string' },
    name: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$', maxLength: 64 },
    version: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    allow_hosts: { type: 'array', items: { type: 'string', pattern: HOST_PATTERN, maxLength: 253 } },
    hosts_from_operation: { type: 'boolean' },
    timeout_ms: { type: 'integer', minimum: 1, maximum: 120000 },
    memory_mb: { type: 'integer', minimum: 8, maximum: 1024 },
    max_response_bytes: { type: 'integer', minimum: 1, maximum: 256 * 1024 * 1024 },
    assets: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1 },
          path: { type: 'string', minLength: 1 },
          option: { type: 'string', minLength: 1 },
          optional: { type: 'boolean' },
        },
        // Exactly one source: a bundled file or an operator-supplied path, never both.
        oneOf: [{ required: ['path'] }, { required: ['option'] }],
      },
    },
  },
} as const;

// strictRequired off: the oneOf branches name properties declared one level up, which is the point.
const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
const validate = ajv.compile<PluginManifest>(manifestSchema);

export class ManifestError extends Error {
  override readonly name = 'ManifestError';
  constructor(
    readonly file: string,
    readonly pointer: string,
    detail: string,
  ) {
    super(`${file}: ${pointer || '/'} ${detail}`);
  }
}

function firstError(errors: ErrorObject[]): ErrorObject {
  // With allErrors, a bad asset yields the two oneOf branch failures and then the oneOf summary; the summary
  // ("must match exactly one schema") is the one a human can act on.
  return (
    errors.find((e) => e.keyword === 'oneOf') ?? errors.find((e) => e.keyword === 'additionalProperties') ?? errors[0]
  );
}

function describe(e: ErrorObject): string {
  if (e.keyword === 'additionalProperties') {
    return `has unknown property "${String((e.params as { additionalProperty: string }).additionalProperty)}"`;
  }
  if (e.keyword === 'oneOf') return 'needs exactly one of "path" or "option"';
  return e.message ?? e.keyword;
}

/** Validates a parsed manifest. `folderName` is the plugin's folder: the manifest name must equal it. */
export function validateManifest(value: unknown, file: string, folderName: string): PluginManifest {
  if (!validate(value)) {
    const e = firstError(validate.errors ?? []);
    throw new ManifestError(file, e.instancePath, describe(e));
  }
  const manifest = value;
  if (manifest.name !== folderName) {
    throw new ManifestError(file, '/name', `is "${manifest.name}" but the folder is "${folderName}"; they must match`);
  }
  if (manifest.hosts_from_operation && manifest.allow_hosts.length > 0) {
    throw new ManifestError(file, '/allow_hosts', 'must be empty when hosts_from_operation is set');
  }
  const seen = new Set<string>();
  (manifest.assets ?? []).forEach((a, i) => {
    if (seen.has(a.name)) throw new ManifestError(file, `/assets/${i}/name`, `repeats asset "${a.name}"`);
    seen.add(a.name);
    // A bundled asset must stay inside the plugin folder: plugin.json must not be a way to read /etc/passwd.
    if (a.path !== undefined) {
      const rel = relative('.', a.path);
      if (isAbsolute(a.path) || rel.startsWith('..')) {
        throw new ManifestError(file, `/assets/${i}/path`, 'must be a relative path inside the plugin folder');
      }
    }
  });
  return manifest;
}

/** Reads and validates `<dir>/plugin.json`; bundled (path) assets that are not optional must exist. */
export async function loadManifest(dir: string): Promise<PluginManifest> {
  const file = join(dir, MANIFEST_FILE);
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new ManifestError(file, '', `cannot be read as JSON: ${(err as Error).message}`);
  }
  const manifest = validateManifest(parsed, file, basename(resolve(dir)));
  for (const [i, a] of (manifest.assets ?? []).entries()) {
    if (a.path === undefined || a.optional) continue;
    const ok = await stat(join(dir, a.path)).then(
      (s) => s.isFile(),
      () => false,
    );
    if (!ok) throw new ManifestError(file, `/assets/${i}/path`, `names ${a.path}, which is not a file in ${dir}`);
  }
  return manifest;
}

/**
 * A plugin that can reach no network: its calls only compute (the isolate pool batches them on the gateway thread;
 * on PostgreSQL the pipeline charges them in one step after they ran).
 */
export function reachesNoNetwork(m: PluginManifest): boolean {
  return m.allow_hosts.length === 0 && !m.hosts_from_operation;
}
