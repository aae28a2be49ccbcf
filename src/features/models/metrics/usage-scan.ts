/** Input and output tokens an answer reports, and the model that answered, where it says. */
export interface AnswerFacts {
  input: number;
  output: number;
  model?: string;
}

const USAGE_KEY = Buffer.from('"usage"');
const MODEL = /"model"\s*:\s*"([^"\\]{1,200})"/;
/** How far past the `"usage"` key its numbers are looked for. */
const USAGE_WINDOW = 1024;
/** How far into an answer its `model` is looked for (providers write it near the top). */
const MODEL_WINDOW = 1024;

/** The whole number after `"<key>":` in `text` (0 when the key is not there): no regex, no match arrays. */
function numberAfter(text: string, key: string): number {
  const at = text.indexOf(key);
  if (at < 0) return 0;
  let i = at + key.length;
  while (i < text.length && (text.charCodeAt(i) === 0x20 || text.charCodeAt(i) === 0x0a || text.charCodeAt(i) === 0x0d || text.charCodeAt(i) === 0x09)) i++;
  if (text.charCodeAt(i) !== 0x3a) return 0;
  i++;
  while (i < text.length && (text.charCodeAt(i) === 0x20 || text.charCodeAt(i) === 0x0a || text.charCodeAt(i) === 0x0d || text.charCodeAt(i) === 0x09)) i++;
  let n = 0;
  let digits = 0;
  for (let c = text.charCodeAt(i); c >= 0x30 && c <= 0x39; c = text.charCodeAt(++i)) {
    n = n * 10 + (c - 0x30);
    digits++;
  }
  return digits ? n : 0;
}

/** The facts of an answer's bytes; its model is read only when asked for (most requests name theirs). */
class ScannedFacts implements AnswerFacts {
  private found: string | null | undefined;

  constructor(
    readonly input: number,
    readonly output: number,
    private readonly raw: Buffer,
  ) {}

  get model(): string | undefined {
    if (this.found === undefined) {
      const model = MODEL.exec(this.raw.toString('utf8', 0, Math.min(this.raw.length, MODEL_WINDOW)));
      this.found = model ? model[1]! : null;
    }
    return this.found ?? undefined;
  }
}

/**
 * The facts of an answer that passed through as bytes, found without parsing it: the last
 * `"usage"` object (where OpenAI-shaped, Anthropic-shaped and Responses answers keep it) and
 * the first `"model"` near the top. A JSON string cannot hold an unescaped `"usage"`, so only
 * the key matches. Costs a native search and a few string searches per answer.
 */
export function scanAnswer(raw: Buffer): AnswerFacts | undefined {
  const at = raw.lastIndexOf(USAGE_KEY);
  if (at < 0) return undefined;
  const usage = raw.toString('latin1', at, Math.min(raw.length, at + USAGE_WINDOW));
  const input =
    (numberAfter(usage, '"prompt_tokens"') || numberAfter(usage, '"input_tokens"')) +
    numberAfter(usage, '"cache_read_input_tokens"') +
    numberAfter(usage, '"cache_creation_input_tokens"');
  const output = numberAfter(usage, '"completion_tokens"') || numberAfter(usage, '"output_tokens"');
  return new ScannedFacts(input, output, raw);
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
