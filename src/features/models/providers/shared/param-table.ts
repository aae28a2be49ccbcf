/**
 * Providers as data: a table maps OpenAI request fields to a provider's, with defaults and
 * bounds; `compileParamTable` turns it into one function at start-up, read by this one
 * interpreter for every provider.
 */
export interface ParamRule {
  /** Destination path in the provider body, dotted ("generationConfig.temperature"). */
  to?: string;
  /** Used when the field is absent (a function gets the whole request). */
  default?: unknown | ((request: Record<string, unknown>) => unknown);
  /** Values are clamped into [min, max]. */
  min?: number;
  max?: number;
  /** Converts the value; returning undefined drops it. */
  transform?: (value: unknown, request: Record<string, unknown>) => unknown;
  /**
   * Builds the value from the whole request, for destinations made of several request fields
   * (a system prompt lifted out of the messages, a tool choice that depends on two fields);
   * the table key then only names the destination. Returning undefined sets nothing.
   */
  compute?: (request: Record<string, unknown>) => unknown;
}

/** A rule, a destination path as shorthand, or false to drop the field. */
export type ParamTable = Record<string, ParamRule | string | false>;

export interface CompileOptions {
  /** Copy fields the table does not name (OpenAI-compatible upstreams accept extras). */
  passUnknown?: boolean;
  /** Put the fields the table does not name under this dotted path instead of the top level (implies passUnknown). */
  unknownTo?: string;
}

type Setter = (out: Record<string, unknown>, request: Record<string, unknown>) => void;

function setPath(out: Record<string, unknown>, path: string[], value: unknown): void {
  let node = out;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    let next = node[key];
    if (next === undefined || next === null || typeof next !== 'object') node[key] = next = {};
    node = next as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

export function compileParamTable(table: ParamTable, options: CompileOptions = {}): (request: Record<string, unknown>) => Record<string, unknown> {
  const setters: Setter[] = [];
  const named = new Set(Object.keys(table));
  for (const [field, spec] of Object.entries(table)) {
    if (spec === false) continue;
    const rule: ParamRule = typeof spec === 'string' ? { to: spec } : spec;
    const path = (rule.to ?? field).split('.');
    setters.push((out, request) => {
      let value = rule.compute ? rule.compute(request) : request[field];
      if (rule.compute) {
        if (value === undefined) return;
      } else if (value === undefined || value === null) {
        if (rule.default === undefined) return;
        value = typeof rule.default === 'function' ? (rule.default as (r: Record<string, unknown>) => unknown)(request) : rule.default;
        if (value === undefined) return;
      } else if (rule.transform) {
        value = rule.transform(value, request);
        if (value === undefined) return;
      }
      if (typeof value === 'number') {
        const n: number = value;
        if (rule.min !== undefined && n < rule.min) value = rule.min;
        else if (rule.max !== undefined && n > rule.max) value = rule.max;
      }
      setPath(out, path, value);
    });
  }
  const unknownPath = options.unknownTo?.split('.');
  const passUnknown = (options.passUnknown ?? false) || unknownPath !== undefined;
  return (request) => {
    const out: Record<string, unknown> = {};
    if (passUnknown) {
      for (const key of Object.keys(request)) {
        if (named.has(key) || request[key] === undefined) continue;
        if (unknownPath) setPath(out, [...unknownPath, key], request[key]);
        else out[key] = request[key];
      }
    }
    for (const set of setters) set(out, request);
    return out;
  };
}
