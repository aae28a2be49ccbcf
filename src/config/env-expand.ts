/**
 * `${NAME}` and `${NAME:-default}` in every string value of a config tree. A reference to an
 * unset variable with no default is a problem naming the key path.
 */
const REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export interface ExpandProblem {
  path: string;
  message: string;
}

export function expandEnv(
  value: unknown,
  env: NodeJS.ProcessEnv,
  problems: ExpandProblem[],
  path = '',
): unknown {
  if (typeof value === 'string') {
    if (!value.includes('${')) return value;
    return value.replace(REF, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      problems.push({ path: path || '(root)', message: `environment variable ${name} is not set and has no default` });
      return '';
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => expandEnv(item, env, problems, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = expandEnv(item, env, problems, path ? `${path}.${key}` : key);
    }
    return out;
  }
  return value;
}
