/** Input and output tokens an answer reports, and the model that answered, where it says. */
export interface AnswerFacts {
  input: number;
  output: number;
  model?: string;
}

const USAGE_KEY = Buffer.from('"usage"');
const INPUT = /"(?:prompt_tokens|input_tokens)"\s*:\s*(\d+)/;
const OUTPUT = /"(?:completion_tokens|output_tokens)"\s*:\s*(\d+)/;
const CACHE_READ = /"cache_read_input_tokens"\s*:\s*(\d+)/;
const CACHE_WRITE = /"cache_creation_input_tokens"\s*:\s*(\d+)/;
const MODEL = /"model"\s*:\s*"([^"\\]{1,200})"/;
/** How far past the `"usage"` key its numbers are looked for. */
const USAGE_WINDOW = 1024;
/** How far into an answer its `model` is looked for (providers write it near the top). */
const MODEL_WINDOW = 1024;

function numberOf(text: string, pattern: RegExp): number {
  const m = pattern.exec(text);
  return m ? Number(m[1]) : 0;
}

/**
 * The facts of an answer that passed through as bytes, found without parsing it: the last
 * `"usage"` object (where OpenAI-shaped, Anthropic-shaped and Responses answers keep it) and
 * the first `"model"` near the top. A JSON string cannot hold an unescaped `"usage"`, so only
 * the key matches. Costs two native searches and two small regexes per answer.
 */
export function scanAnswer(raw: Buffer): AnswerFacts | undefined {
  const at = raw.lastIndexOf(USAGE_KEY);
  if (at < 0) return undefined;
  const usage = raw.toString('latin1', at, Math.min(raw.length, at + USAGE_WINDOW));
  const input = numberOf(usage, INPUT) + numberOf(usage, CACHE_READ) + numberOf(usage, CACHE_WRITE);
  const facts: AnswerFacts = { input, output: numberOf(usage, OUTPUT) };
  const model = MODEL.exec(raw.toString('utf8', 0, Math.min(raw.length, MODEL_WINDOW)));
  if (model) facts.model = model[1];
  return facts;
}

/** The same facts from a usage object (a parsed answer's `usage`, a stream's usage part). */
export function usageFacts(usage: Record<string, unknown> | undefined, model?: unknown): AnswerFacts | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const input = n(usage.prompt_tokens ?? usage.input_tokens) + n(usage.cache_read_input_tokens) + n(usage.cache_creation_input_tokens);
  const facts: AnswerFacts = { input, output: n(usage.completion_tokens ?? usage.output_tokens) };
  if (typeof model === 'string' && model) facts.model = model;
  return facts;
}
