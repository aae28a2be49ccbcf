/** The problem line of a setting a check cannot work without (pushed to `problems`), or none. */
export function need<C extends object>(config: C, key: keyof C & string, type: string, what: string, path: string, problems: string[]): boolean {
  if (config[key] !== undefined) return true;
  problems.push(`${path}.${key}: is required for a ${type} check (${what})`);
  return false;
}
