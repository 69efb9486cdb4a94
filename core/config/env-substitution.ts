// ${VAR} and ${VAR:-default} in operation options, so secrets live in the environment, not in the YAML.
const PLACEHOLDER = /\$\{([A-Z_][A-Z0-9_]*)(?::-([^}]*))?\}/g;

export function substituteEnv(value: unknown, env: NodeJS.ProcessEnv, missing: Set<string>): unknown {
  if (typeof value === 'string') {
    return value.replace(PLACEHOLDER, (_m, name: string, fallback: string | undefined) => {
      const v = env[name];
      if (v !== undefined && v !== '') return v;
      if (fallback === undefined) missing.add(name);
      return fallback ?? '';
    });
  }
  if (Array.isArray(value)) return value.map((v) => substituteEnv(v, env, missing));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteEnv(v, env, missing)]));
  }
  return value;
}
