/**
 * `${NAME}` and `${NAME:-default}` in every string value of a config tree. A reference to an
 * unset (or empty) variable with no default is a problem naming the key path. The JSON
 * pointers of the values that held a reference are collected in `expanded`, so that a value
 * read from the environment can later become the number or boolean its key asks for.
 */
const REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export interface ExpandProblem {
  path: string;
  message: string;
}

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

export function expandEnv(value: unknown, env: NodeJS.ProcessEnv, problems: ExpandProblem[], path = '', expanded?: Set<string>, pointer = ''): unknown {
  if (typeof value === 'string') {
    if (!value.includes('${')) return value;
    expanded?.add(pointer);
    return value.replace(REF, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      problems.push({ path: path || '(root)', message: `environment variable ${name} is not set and has no default` });
      return '';
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => expandEnv(item, env, problems, `${path}[${i}]`, expanded, `${pointer}/${i}`));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = expandEnv(item, env, problems, path ? `${path}.${key}` : key, expanded, `${pointer}/${escapePointer(key)}`);
    }
    return out;
  }
  return value;
}
