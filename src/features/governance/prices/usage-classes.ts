/**
 * A usage block of any shape the gateway sees (OpenAI chat and Responses, Anthropic Messages,
 * Gemini usageMetadata, Bedrock Converse, Cohere v2 billed units) read into disjoint token
 * classes, so that each token is priced exactly once: a cached prompt token at the cache-read
 * price only, a reasoning token at the reasoning (else output) price only.
 */
export interface TokenUsage {
  /** Text prompt tokens neither read from nor written into a cache. */
  input: number;
  cacheRead: number;
  cacheWrite: number;
  /** Generated tokens other than reasoning and audio. */
  output: number;
  reasoning: number;
  inputAudio: number;
  outputAudio: number;
  images: number;
  audioSeconds: number;
  characters: number;
}

export const NO_USAGE: Readonly<TokenUsage> = Object.freeze({
  input: 0,
  cacheRead: 0,
  cacheWrite: 0,
  output: 0,
  reasoning: 0,
  inputAudio: 0,
  outputAudio: 0,
  images: 0,
  audioSeconds: 0,
  characters: 0,
});

type Block = Record<string, unknown>;

/** A whole, non-negative count (anything else counts as 0). */
function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

function part(block: unknown, key: string): Block | undefined {
  const value = (block as Block | undefined)?.[key];
  return value && typeof value === 'object' ? (value as Block) : undefined;
}

/** Splits totals that include their details: what is left of `total` once `parts` are taken out (never below 0). */
function rest(total: number, ...parts: number[]): number {
  return Math.max(
    0,
    parts.reduce((left, p) => left - p, total),
  );
}

/** OpenAI chat: prompt_tokens include cached and audio tokens, completion_tokens include reasoning and audio. */
function fromChat(u: Block): TokenUsage {
  const promptDetails = part(u, 'prompt_tokens_details');
  const completionDetails = part(u, 'completion_tokens_details');
  const cacheRead = count(promptDetails?.cached_tokens);
  const cacheWrite = count(promptDetails?.cache_write_tokens) + count(u.cache_creation_input_tokens);
  const inputAudio = count(promptDetails?.audio_tokens);
  const reasoning = count(completionDetails?.reasoning_tokens);
  const outputAudio = count(completionDetails?.audio_tokens);
  return {
    ...NO_USAGE,
    input: rest(count(u.prompt_tokens), cacheRead, cacheWrite, inputAudio),
    cacheRead,
    cacheWrite,
    inputAudio,
    output: rest(count(u.completion_tokens), reasoning, outputAudio),
    reasoning,
    outputAudio,
  };
}

/** OpenAI Responses: input_tokens include cached ones, output_tokens include reasoning. */
function fromResponses(u: Block): TokenUsage {
  const cacheRead = count(part(u, 'input_tokens_details')?.cached_tokens);
  const reasoning = count(part(u, 'output_tokens_details')?.reasoning_tokens);
  return { ...NO_USAGE, input: rest(count(u.input_tokens), cacheRead), cacheRead, output: rest(count(u.output_tokens), reasoning), reasoning };
}

/** Anthropic Messages: input_tokens exclude both cache classes; output_tokens include thinking (priced as output). */
function fromAnthropic(u: Block): TokenUsage {
  return {
    ...NO_USAGE,
    input: count(u.input_tokens),
    cacheRead: count(u.cache_read_input_tokens),
    cacheWrite: count(u.cache_creation_input_tokens),
    output: count(u.output_tokens),
  };
}

/** Gemini usageMetadata: promptTokenCount includes cached content; thoughts are counted apart from candidates. */
function fromGemini(u: Block): TokenUsage {
  const cacheRead = count(u.cachedContentTokenCount);
  return {
    ...NO_USAGE,
    input: rest(count(u.promptTokenCount), cacheRead),
    cacheRead,
    output: count(u.candidatesTokenCount),
    reasoning: count(u.thoughtsTokenCount),
  };
}

/** Bedrock Converse: inputTokens exclude the cache classes. */
function fromBedrock(u: Block): TokenUsage {
  return {
    ...NO_USAGE,
    input: count(u.inputTokens),
    cacheRead: count(u.cacheReadInputTokens),
    cacheWrite: count(u.cacheWriteInputTokens),
    output: count(u.outputTokens),
  };
}

/** Cohere v2: the billed units are what is charged. */
function fromCohere(billed: Block): TokenUsage {
  return { ...NO_USAGE, input: count(billed.input_tokens), output: count(billed.output_tokens) };
}

/** The token classes of a usage block, whatever its shape; all zero for anything unknown. */
export function usageClasses(usage: unknown): TokenUsage {
  if (!usage || typeof usage !== 'object') return { ...NO_USAGE };
  const u = usage as Block;
  if ('prompt_tokens' in u || 'completion_tokens' in u) return fromChat(u);
  if ('input_tokens_details' in u || 'output_tokens_details' in u) return fromResponses(u);
  if ('cache_read_input_tokens' in u || 'cache_creation_input_tokens' in u) return fromAnthropic(u);
  if ('promptTokenCount' in u || 'candidatesTokenCount' in u) return fromGemini(u);
  if ('inputTokens' in u || 'outputTokens' in u) return fromBedrock(u);
  const billed = part(u, 'billed_units');
  if (billed) return fromCohere(billed);
  if ('input_tokens' in u || 'output_tokens' in u) return fromAnthropic(u);
  return { ...NO_USAGE };
}
