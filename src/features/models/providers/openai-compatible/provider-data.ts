/**
 * Providers as data: one OpenAI-compatible provider per file of providers/ (`<id>.yaml`, checked
 * against schema/providers/provider-data.schema.json), turned into a provider definition by this
 * one interpreter on the shared OpenAI-compatible base. A file says where the provider is, how
 * the key goes, which operations it serves, which request fields it names differently or does
 * not take, the bounds it documents, how reasoning and usage come back, and where its prices
 * and docs are. Code is kept only for translations (a provider folder named by `code`). The
 * files are read and checked by builtin-providers.ts.
 */
import type { ProviderData } from '../../../../generated/providers/provider-data.js';
import {
  AUDIO_OPERATIONS,
  BATCHES_OPERATIONS,
  FILES_OPERATIONS,
  FINE_TUNING_OPERATIONS,
  OPENAI_API_OPERATIONS,
  RESPONSES_OPERATIONS,
  type Operation,
} from '../../../../contract/operations.js';
import { badRequest } from '../../../../contract/errors/gateway-error.js';
import type { OperationAdapter, ProviderCall, ProviderDefinition, ProviderField, ProviderSettings } from '../provider.js';
import { BARE_RATELIMIT_HEADERS } from '../shared/upstream-headers.js';
import { settingHeader } from '../shared/caller-values.js';
import { openAICompatible, PROVIDER_SETTINGS_SCHEMA, type AnswerRewrite } from './openai-compatible.js';
import { isJsonObject, objectOf } from '../../../../contract/json.js';

export type { ProviderData };

/** What a provider's code adds to its data (translated operations, fields its code reads). */
export interface ProviderCode {
  /** Operations served by code of their own (other paths or shapes). */
  overrides?: Partial<Record<Operation, OperationAdapter>>;
  settingFields?: readonly string[];
  /** A request body translated for one operation (after the file's renames and drops). */
  bodies?: Partial<Record<Operation, (body: Record<string, unknown>) => Record<string, unknown>>>;
  /** An answer translated into the gateway's shape for one operation. */
  answers?: Partial<Record<Operation, (body: unknown, call: ProviderCall) => unknown>>;
}

/** One option of a data file (a setting its address or code is built from). */
export type ProviderOption = NonNullable<ProviderData['options']>[number];

const FAMILIES: Record<string, readonly Operation[]> = {
  audio: AUDIO_OPERATIONS,
  files: FILES_OPERATIONS,
  batches: BATCHES_OPERATIONS,
  fine_tuning: FINE_TUNING_OPERATIONS,
  responses: RESPONSES_OPERATIONS,
  'openai-api': OPENAI_API_OPERATIONS,
};

/** What the schema cannot say: the file name, placeholders without an option, patterns that do not compile. */
export function dataProblem(data: ProviderData, fileName: string): string | undefined {
  if (fileName !== `${data.id}.yaml`) return `id ${data.id} does not match the file name`;
  const options = new Set((data.options ?? []).map((o) => o.field));
  for (const field of placeholders(data.base_url)) if (!options.has(field)) return `base_url names {${field}}, which no option declares`;
  for (const option of data.options ?? []) {
    try {
      new RegExp(option.pattern);
    } catch (err) {
      return `options ${option.field}: the pattern does not compile (${(err as Error).message})`;
    }
  }
  return undefined;
}

function placeholders(template: string): string[] {
  return [...template.matchAll(/\{([a-z0-9_]+)\}/g)].map((m) => m[1]!);
}

/** The operations a file names (families expanded), with models.list where it has a models endpoint. */
export function dataOperations(data: ProviderData): Operation[] {
  const out = new Set<Operation>();
  for (const op of data.operations) for (const one of FAMILIES[op] ?? [op as Operation]) out.add(one);
  if (data.models_endpoint) out.add('models.list');
  return [...out];
}

/** Whether a request needs a key (hosted providers, unless the file says otherwise). */
export function dataRequiresKey(data: ProviderData): boolean {
  return data.auth.required ?? data.kind === 'hosted';
}

type Json = Record<string, unknown>;

/** The body of chat, completions, embeddings and rerank requests as the provider takes it: bounds checked (or clamped), fields dropped and renamed. */
function requestBodyOf(data: ProviderData): ((op: Operation, body: Json) => Json | undefined) | undefined {
  const rename = Object.entries(data.params?.rename ?? {});
  const drop = data.params?.drop ?? [];
  const constraints = Object.entries(data.constraints ?? {});
  if (!rename.length && !drop.length && !constraints.length) return undefined;
  return (op, body) => {
    if (op !== 'chat.completions' && op !== 'completions' && op !== 'embeddings' && op !== 'rerank') return undefined;
    let out: Json | undefined;
    const edit = (): Json => (out ??= { ...body });
    for (const [field, bound] of constraints) {
      const value = body[field];
      if (typeof value !== 'number') continue;
      const low = bound.min !== undefined && value < bound.min;
      const high = bound.max !== undefined && value > bound.max;
      if (!low && !high) continue;
      if (bound.clamp) edit()[field] = low ? bound.min : bound.max;
      else {
        const range =
          bound.min !== undefined && bound.max !== undefined
            ? `from ${bound.min} to ${bound.max}`
            : bound.min !== undefined
              ? `of at least ${bound.min}`
              : `of at most ${bound.max}`;
        throw badRequest(`${data.name} takes ${field} ${range}; the request has ${value}.`, field);
      }
    }
    for (const field of drop) if (field in (out ?? body)) delete edit()[field];
    for (const [from, to] of rename) {
      if (!(from in (out ?? body))) continue;
      const o = edit();
      if (o[to] === undefined) o[to] = o[from];
      delete o[from];
    }
    return out;
  };
}

/** Usage counts named the provider's way, renamed OpenAI's in answers and chunks. */
function usageRewriteOf(data: ProviderData): AnswerRewrite | undefined {
  const rename = Object.entries(data.usage?.rename ?? {});
  if (!rename.length) return undefined;
  const needles = rename.map(([from]) => `"${from}"`);
  const renameIn = (usage: unknown): boolean => {
    if (!isJsonObject(usage)) return false;
    let changed = false;
    for (const [from, to] of rename) {
      if (!(from in usage)) continue;
      if (usage[to] === undefined) usage[to] = usage[from];
      delete usage[from];
      changed = true;
    }
    return changed;
  };
  return {
    mentions: (raw) => needles.some((n) => raw.includes(n)),
    answer: (body) => {
      renameIn(objectOf(body).usage);
      return body;
    },
    chunk: (text) => {
      let chunk: Json;
      try {
        chunk = JSON.parse(text);
      } catch {
        return text;
      }
      return renameIn(objectOf(chunk).usage) ? JSON.stringify(chunk) : text;
    },
  };
}

/** A pattern for the host of a templated base URL: each {field} as its option's pattern. */
function hostsOf(data: ProviderData, options: Map<string, ProviderOption>): RegExp | undefined {
  const host = /^https?:\/\/([^/]+)/.exec(data.base_url)?.[1] ?? '';
  if (!placeholders(host).length) return undefined;
  const source = host
    .split(/(\{[a-z0-9_]+\})/)
    .map((part) => {
      const field = /^\{([a-z0-9_]+)\}$/.exec(part)?.[1];
      if (!field) return part.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
      return `(?:${options.get(field)!.pattern.slice(1, -1)})`;
    })
    .join('');
  return new RegExp(`^${source}$`);
}

/** The provider definition a data file describes. */
export function providerFromData(data: ProviderData, code: ProviderCode = {}): ProviderDefinition {
  const options = new Map((data.options ?? []).map((o) => [o.field, o]));
  const templateFields = placeholders(data.base_url);
  const paths: Partial<Record<Operation, string>> = { ...(data.paths as Partial<Record<Operation, string>>) };
  if (data.models_endpoint && data.models_endpoint !== '/models') paths['models.list'] = data.models_endpoint;
  const header = data.auth.header;
  const prefix = data.auth.prefix ?? '';
  const schema: Record<string, unknown> = options.size
    ? {
        ...Object.fromEntries(Object.entries(PROVIDER_SETTINGS_SCHEMA).filter(([k]) => k !== '$id')),
        properties: {
          ...(PROVIDER_SETTINGS_SCHEMA.properties as Record<string, unknown>),
          ...Object.fromEntries([...options.values()].map((o) => [o.field, { description: o.what, type: 'string', pattern: o.pattern }])),
        },
      }
    : PROVIDER_SETTINGS_SCHEMA;
  /** The value of an address option: the request's, else providers.<id>.<field>, else the file's default. */
  const optionValue = (call: ProviderCall, settings: ProviderSettings, field: string): string => {
    const option = options.get(field)!;
    const value = call.target.options?.[field] ?? (settings as Record<string, unknown>)[field] ?? option.default;
    if (typeof value !== 'string' || value === '') {
      throw badRequest(`${data.name} needs ${option.what}: send ${settingHeader(field)} (or set providers.${data.id}.${field}).`, settingHeader(field));
    }
    if (!new RegExp(option.pattern).test(value)) throw badRequest(`${settingHeader(field)} must be ${option.what}.`, settingHeader(field));
    return value;
  };
  const fileBody = requestBodyOf(data);
  const codeBodies = code.bodies ?? {};
  const requestBody =
    fileBody || Object.keys(codeBodies).length
      ? (op: Operation, body: Json): Json | undefined => {
          const own = fileBody?.(op, body);
          const translate = codeBodies[op];
          return translate ? translate(own ?? body) : own;
        }
      : undefined;
  const answerRewrite = usageRewriteOf(data);
  const hosts = hostsOf(data, options);
  const hostFields = new Set(placeholders(/^https?:\/\/([^/]+)/.exec(data.base_url)?.[1] ?? ''));
  const fields: ProviderField[] = [...options.values()].map((o) => ({
    name: o.field,
    pattern: new RegExp(o.pattern),
    what: o.what,
    ...(hostFields.has(o.field) ? { host: true } : {}),
    ...(o.secret ? { secret: true } : {}),
  }));
  const definition = openAICompatible({
    name: data.id,
    displayName: data.name,
    defaultBaseUrl: data.base_url,
    operations: dataOperations(data),
    requiresKey: dataRequiresKey(data),
    settingFields: [...options.keys(), ...(code.settingFields ?? [])],
    fields,
    authHeaders: (key) => (key ? { [header]: `${prefix}${key}` } : {}),
    ...(templateFields.length
      ? { baseUrlFor: (call: ProviderCall, settings: ProviderSettings) => data.base_url.replace(/\{([a-z0-9_]+)\}/g, (_, f: string) => optionValue(call, settings, f)) }
      : {}),
    ...(hosts ? { hosts } : {}),
    ...(Object.keys(paths).length ? { paths } : {}),
    ...(data.headers ? { headers: data.headers } : {}),
    ...(requestBody ? { requestBody } : {}),
    ...(answerRewrite ? { answerRewrite } : {}),
    reasoning: { renamed: data.reasoning?.field === 'reasoning', takesReasoningBack: data.reasoning?.takes_back === true },
    ...(data.rate_limit_headers === 'bare' ? { passHeaders: BARE_RATELIMIT_HEADERS } : {}),
    ...(code.overrides ? { overrides: code.overrides } : {}),
    schema,
  });
  const answers = Object.entries(code.answers ?? {}) as Array<[Operation, (body: unknown, call: ProviderCall) => unknown]>;
  return {
    ...definition,
    description: `${data.name}: OpenAI-compatible API (${data.docs})`,
    create(settings) {
      const instance = definition.create(settings);
      for (const [op, answer] of answers) {
        const adapter = instance.operations[op];
        if (adapter) instance.operations[op] = { ...adapter, response: answer };
      }
      return instance;
    },
  };
}
