import type { IncomingHttpHeaders } from 'node:http';
import { providerSettingsSchema } from '../shared/settings-schema.js';
import type { Operation } from '../../../../contract/operations.js';
import { GatewayError } from '../../../../contract/errors/gateway-error.js';
import type { UpstreamRequest } from '../shared/upstream-request.js';
import type { OperationAdapter, ProviderCall, ProviderDefinition, ProviderField, ProviderInstance, ProviderSettings, StreamAdapter } from '../provider.js';
import { mapOpenAIError } from './openai-errors.js';
import { uploadForm } from '../shared/upload-form.js';
import { mentionsReasoning, renameReasoningInAnswer, renameReasoningInChunk, upstreamChatBody, type ReasoningDialect } from './reasoning-dialect.js';
import { OPENAI_HEADERS, type HeaderPassing } from '../shared/upstream-headers.js';
import { objectOf, type JsonObject } from '../../../../contract/json.js';
import { passedChunk, passedEvent } from '../shared/passthrough-parts.js';

/** Paths of the OpenAI API, appended to a base URL that ends in /v1 (or the provider's equivalent). */
export const OPENAI_PATHS: Partial<Record<Operation, { method: string; path: (p: Record<string, string>) => string; kind: 'json' | 'multipart' | 'none' }>> = {
  'chat.completions': { method: 'POST', path: () => '/chat/completions', kind: 'json' },
  completions: { method: 'POST', path: () => '/completions', kind: 'json' },
  embeddings: { method: 'POST', path: () => '/embeddings', kind: 'json' },
  'images.generations': { method: 'POST', path: () => '/images/generations', kind: 'json' },
  'images.edits': { method: 'POST', path: () => '/images/edits', kind: 'multipart' },
  'audio.speech': { method: 'POST', path: () => '/audio/speech', kind: 'json' },
  'audio.transcriptions': { method: 'POST', path: () => '/audio/transcriptions', kind: 'multipart' },
  'audio.translations': { method: 'POST', path: () => '/audio/translations', kind: 'multipart' },
  'files.create': { method: 'POST', path: () => '/files', kind: 'multipart' },
  'files.list': { method: 'GET', path: () => '/files', kind: 'none' },
  'files.retrieve': { method: 'GET', path: (p) => `/files/${enc(p.file_id)}`, kind: 'none' },
  'files.delete': { method: 'DELETE', path: (p) => `/files/${enc(p.file_id)}`, kind: 'none' },
  'files.content': { method: 'GET', path: (p) => `/files/${enc(p.file_id)}/content`, kind: 'none' },
  'batches.create': { method: 'POST', path: () => '/batches', kind: 'json' },
  'batches.list': { method: 'GET', path: () => '/batches', kind: 'none' },
  'batches.retrieve': { method: 'GET', path: (p) => `/batches/${enc(p.batch_id)}`, kind: 'none' },
  'batches.cancel': { method: 'POST', path: (p) => `/batches/${enc(p.batch_id)}/cancel`, kind: 'none' },
  'fine_tuning.jobs.create': { method: 'POST', path: () => '/fine_tuning/jobs', kind: 'json' },
  'fine_tuning.jobs.list': { method: 'GET', path: () => '/fine_tuning/jobs', kind: 'none' },
  'fine_tuning.jobs.retrieve': { method: 'GET', path: (p) => `/fine_tuning/jobs/${enc(p.job_id)}`, kind: 'none' },
  'fine_tuning.jobs.cancel': { method: 'POST', path: (p) => `/fine_tuning/jobs/${enc(p.job_id)}/cancel`, kind: 'none' },
  'fine_tuning.jobs.events': { method: 'GET', path: (p) => `/fine_tuning/jobs/${enc(p.job_id)}/events`, kind: 'none' },
  'models.list': { method: 'GET', path: () => '/models', kind: 'none' },
  rerank: { method: 'POST', path: () => '/rerank', kind: 'json' },
  moderations: { method: 'POST', path: () => '/moderations', kind: 'json' },
  'responses.create': { method: 'POST', path: () => '/responses', kind: 'json' },
  'responses.retrieve': { method: 'GET', path: (p) => `/responses/${enc(p.response_id)}`, kind: 'none' },
  'responses.delete': { method: 'DELETE', path: (p) => `/responses/${enc(p.response_id)}`, kind: 'none' },
  'responses.cancel': { method: 'POST', path: (p) => `/responses/${enc(p.response_id)}/cancel`, kind: 'none' },
  'responses.input_items': { method: 'GET', path: (p) => `/responses/${enc(p.response_id)}/input_items`, kind: 'none' },
};

function enc(value: string | undefined): string {
  return encodeURIComponent(value ?? '');
}

/**
 * SSE events that are already OpenAI chunks pass through as they are (the byte scan of
 * contract/openai/sse-passthrough.ts hands every event whose ends are not `{` and `}` to this
 * mapper; passedChunk refuses the ones that cannot be a JSON object). Nothing is parsed but an
 * error event.
 */
export const OPENAI_PASSTHROUGH_STREAM: StreamAdapter = {
  framing: 'sse',
  passesThrough: true,
  createMapper: (call) => (event) => {
    if (!('data' in event)) return undefined;
    const data = event.data;
    if (data === '[DONE]') return { type: 'done' };
    if (data === '') return undefined;
    if (data.startsWith('{"error"')) {
      const parsed = JSON.parse(data);
      // `target?.`: a mapper may be made for a call without a target (tests of the stream machinery alone).
      throw new GatewayError('provider_error', String(parsed.error?.message ?? 'the upstream stream reported an error'), { provider: call.target?.provider });
    }
    return passedChunk(data, call.target?.provider);
  },
};

/**
 * Fields of a compatible provider's chat answers that the gateway names differently
 * (`reasoning`, usage counts): `mentions` tells from the bytes whether there is anything to
 * do, `answer` rewrites a whole answer, `chunk` one stream chunk's JSON text.
 */
export interface AnswerRewrite {
  mentions(raw: Buffer | string): boolean;
  answer(body: unknown): unknown;
  chunk(data: string): string;
}

const REASONING_REWRITE: AnswerRewrite = { mentions: mentionsReasoning, answer: renameReasoningInAnswer, chunk: renameReasoningInChunk };

/** Several rewrites as one (each runs where its bytes say it has something to do). */
function combined(rewrites: AnswerRewrite[]): AnswerRewrite {
  if (rewrites.length === 1) return rewrites[0]!;
  return {
    mentions: (raw) => rewrites.some((r) => r.mentions(raw)),
    answer: (body) => rewrites.reduce((out, r) => r.answer(out), body),
    chunk: (data) => rewrites.reduce((out, r) => (r.mentions(out) ? r.chunk(out) : out), data),
  };
}

/** OpenAI chunks whose fields are renamed by `rewrite`, the rest untouched. */
function rewritingStream(rewrite: AnswerRewrite): StreamAdapter {
  return {
    framing: 'sse',
    createMapper: (call) => {
      const inner = OPENAI_PASSTHROUGH_STREAM.createMapper(call);
      return (event) => {
        const part = inner(event);
        return part && !Array.isArray(part) && part.type === 'chunk' ? { type: 'chunk', data: rewrite.chunk(part.data) } : part;
      };
    },
  };
}

/** Responses events that end a response: the answer is complete after them. */
const RESPONSE_END_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * A Responses API stream (`event: <type>` + `data: {...}`) passed through event by event; the
 * answer is complete once the response ended; an `error` event is the upstream failing.
 */
export const RESPONSES_PASSTHROUGH_STREAM: StreamAdapter = {
  framing: 'sse',
  createMapper: (call) => (event) => {
    if (!('data' in event) || event.data === '' || event.data === '[DONE]') return undefined;
    const type = event.event ?? /"type"\s*:\s*"([^"]+)"/.exec(event.data)?.[1];
    if (type === 'error') {
      let parsed: JsonObject;
      try {
        parsed = objectOf(JSON.parse(event.data));
      } catch {
        parsed = {};
      }
      const err = objectOf(parsed.error ?? parsed);
      throw new GatewayError('provider_error', String(err.message ?? 'the upstream stream reported an error'), { provider: call.target.provider });
    }
    const part = passedEvent(type, event.data, call.target.provider);
    return type && RESPONSE_END_EVENTS.has(type) ? [part, { type: 'done' }] : part;
  },
};

const BINARY_OPERATIONS = new Set<Operation>(['audio.speech', 'files.content', 'audio.transcriptions', 'audio.translations']);

/** Operations whose answer is JSON or text as the request's `response_format` asks. */
const TEXT_ANSWERS = new Set<Operation>(['audio.transcriptions', 'audio.translations']);

/**
 * Whether a transcription's answer passes as bytes: text, SRT, VTT and streamed ones do; a JSON
 * one (json, verbose_json, the default) is read as a JSON answer, so its usage (seconds of
 * audio, or tokens) is there to bill.
 */
function textAnswer(call: ProviderCall): boolean {
  const fields = (call.body as { fields?: Record<string, unknown> } | undefined)?.fields;
  const format = fields?.response_format;
  if (fields?.stream === 'true') return true;
  return format !== undefined && !(typeof format === 'string' && format.endsWith('json'));
}

export interface OpenAICompatibleOptions {
  name: string;
  displayName: string;
  defaultBaseUrl: string;
  /** Operations this provider serves with OpenAI's paths and shapes. */
  operations: Operation[];
  /** Providers that run without a key (local servers). */
  requiresKey?: boolean;
  /** Provider-specific target fields it reads (see ProviderInstance.settingFields). */
  settingFields?: readonly string[];
  /** Headers carrying the key (default Authorization: Bearer). */
  authHeaders?: (apiKey: string | undefined, call: ProviderCall) => Record<string, string>;
  /** Builds the full URL (default base URL + OpenAI path + query). */
  url?: (base: string, path: string, call: ProviderCall) => string;
  /**
   * The base URL of a call when neither custom_host nor `providers.<id>.baseUrl` gives one, for
   * providers whose public address depends on the request (a per-customer host name).
   */
  baseUrlFor?: (call: ProviderCall, settings: ProviderSettings) => string;
  /** The provider's public hosts when its address depends on the request (see ProviderInstance.hosts). */
  hosts?: RegExp;
  /** Replaces or adds operation adapters (e.g. completions mapped onto chat). */
  overrides?: Partial<Record<Operation, OperationAdapter>>;
  /** The provider's error module (default: OpenAI's error shape). */
  mapError?: (provider: string, status: number, body: Buffer, headers: IncomingHttpHeaders) => GatewayError;
  /** How the upstream returns the model's reasoning and takes it back (default: `reasoning_content`, not taken back). */
  reasoning?: ReasoningDialect;
  /** Upstream response headers passed to the caller (default: the OpenAI names, as they are). */
  passHeaders?: HeaderPassing;
  /** The path of an operation when it is not OpenAI's (appended to the base URL). */
  paths?: Partial<Record<Operation, string>>;
  /** Fixed headers sent on every request (before providers.<id>.headers and the key). */
  headers?: Record<string, string>;
  /**
   * The JSON body of an operation as the provider takes it (renamed, dropped or bounded
   * fields); undefined when nothing changes. May throw a 400 for a value the provider refuses.
   */
  requestBody?: (operation: Operation, body: Record<string, unknown>) => Record<string, unknown> | undefined;
  /** Chat answer fields the provider names differently (besides reasoning). */
  answerRewrite?: AnswerRewrite;
  /** The settings it declares (see ProviderDefinition.fields). */
  fields?: readonly ProviderField[];
  /** Settings schema (providers.<id>); default PROVIDER_SETTINGS_SCHEMA. */
  schema?: Record<string, unknown>;
}

/** The settings most providers take (providers.<id>): schema/providers/provider-settings.schema.json. */
export const PROVIDER_SETTINGS_SCHEMA = providerSettingsSchema('provider-settings');

/** The JSON body to send: the caller's bytes when nothing changed them. */
export function jsonRequestBody(call: ProviderCall): string | Buffer {
  return call.rawBody ?? JSON.stringify(call.body);
}

export function trimSlash(url: string): string {
  return url.endsWith('/') ? url.slice(0, -1) : url;
}

/** The shared base of the many OpenAI-compatible providers. */
export function openAICompatible(options: OpenAICompatibleOptions): ProviderDefinition {
  const authHeaders = options.authHeaders ?? ((key: string | undefined): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {}));
  const buildUrl =
    options.url ??
    ((base: string, path: string, call: ProviderCall) => {
      const qs = call.hasQuery === false ? '' : call.query.toString();
      return `${base}${path}${qs ? `?${qs}` : ''}`;
    });
  return {
    name: options.name,
    displayName: options.displayName,
    schema: options.schema ?? PROVIDER_SETTINGS_SCHEMA,
    ...(options.fields ? { fields: options.fields } : {}),
    create(settings: ProviderSettings): ProviderInstance {
      const baseUrl = trimSlash(settings.baseUrl ?? options.defaultBaseUrl);
      const extraHeaders = { ...options.headers, ...settings.headers };
      const operations: Partial<Record<Operation, OperationAdapter>> = {};
      const dialect = options.reasoning ?? {};
      for (const op of options.operations) {
        const openaiSpec = OPENAI_PATHS[op];
        if (!openaiSpec) throw new Error(`${options.name}: ${op} has no OpenAI path`);
        const ownPath = options.paths?.[op];
        const spec = ownPath === undefined ? openaiSpec : { ...openaiSpec, path: () => ownPath };
        const adapter: OperationAdapter = {
          takesOpenAIBody: true,
          request(call: ProviderCall): UpstreamRequest {
            const base = call.target.baseUrl ? trimSlash(call.target.baseUrl) : options.baseUrlFor && !settings.baseUrl ? trimSlash(options.baseUrlFor(call, settings)) : baseUrl;
            const headers: Record<string, string> = { ...extraHeaders, ...authHeaders(call.apiKey, call) };
            let body: UpstreamRequest['body'] = null;
            if (spec.kind === 'json') {
              headers['content-type'] = 'application/json';
              const cleaned = op === 'chat.completions' ? upstreamChatBody(call.body, dialect) : undefined;
              const own = options.requestBody && call.body && typeof call.body === 'object' ? options.requestBody(op, cleaned ?? call.body) : undefined;
              const sent = own ?? cleaned;
              body = sent ? JSON.stringify(sent) : jsonRequestBody(call);
            } else if (spec.kind === 'multipart') {
              const form = uploadForm(call);
              headers['content-type'] = form.contentType;
              headers['content-length'] = String(form.contentLength);
              body = form.body;
            }
            return { method: spec.method, url: buildUrl(base, spec.path(call.params), call), headers, body };
          },
        };
        if (op === 'chat.completions' || op === 'completions') adapter.stream = OPENAI_PASSTHROUGH_STREAM;
        const rewrites = [...(dialect.renamed ? [REASONING_REWRITE] : []), ...(options.answerRewrite ? [options.answerRewrite] : [])];
        if ((op === 'chat.completions' || op === 'completions') && rewrites.length > 0) {
          const rewrite = combined(rewrites);
          // Reasoning is a chat field; usage counts are renamed in both.
          const own = op === 'chat.completions' ? rewrite : options.answerRewrite;
          if (own) {
            adapter.stream = rewritingStream(own);
            adapter.response = own.answer;
            adapter.responseNeeded = own.mentions;
          }
        }
        if (op === 'responses.create') adapter.stream = RESPONSES_PASSTHROUGH_STREAM;
        if (BINARY_OPERATIONS.has(op)) adapter.binary = TEXT_ANSWERS.has(op) ? textAnswer : true;
        operations[op] = adapter;
      }
      Object.assign(operations, options.overrides);
      const mapError = options.mapError ?? mapOpenAIError;
      return {
        id: options.name,
        baseUrl,
        ...(options.hosts && !settings.baseUrl ? { hosts: options.hosts } : {}),
        settings,
        requiresKey: options.requiresKey ?? true,
        ...(options.settingFields ? { settingFields: options.settingFields } : {}),
        operations,
        mapError: (status, body, headers) => mapError(options.name, status, body, headers),
        passHeaders: options.passHeaders ?? OPENAI_HEADERS,
      };
    },
  };
}
