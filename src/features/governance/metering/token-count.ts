/**
 * Token counting with a real BPE tokenizer (gpt-tokenizer, cl100k_base): the prompt of a request
 * for its worst-case reservation, and the text of a stream cut short (billed as estimated).
 * The encoding's tables take about 0.2 s to load and some 11 MB of heap (40 MB of RSS at their
 * peak), and only a request with a gateway key is metered: they are loaded with the first
 * streamed one (`loadTokenizer`, in the background: a stream cut short is counted), never by a
 * gateway that serves no gateway key. Until they are in, text is counted at one token per 3
 * characters, which is above what BPE gives for ordinary text; a reservation that needs the
 * exact count waits for them.
 */

type Counter = (text: string) => number;
let counter: Counter | undefined;
let loading: Promise<void> | undefined;
/** The load has ended (the tokenizer in, or its import failed: counting stays at the fallback). */
let settled = false;

/** Loads the tokenizer (once); resolves when it is ready. */
export function loadTokenizer(): Promise<void> {
  loading ??= import('gpt-tokenizer/encoding/cl100k_base').then(
    (m) => {
      counter = m.countTokens as Counter;
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  return loading;
}

/** Whether counting is as exact as it will get (the load has ended). */
export function tokenizerSettled(): boolean {
  return settled;
}

/** BPE is quadratic in one long run without spaces: text is counted in slices of this many characters. */
const SLICE = 512;

/** Tokens in `text`. */
export function countText(text: string): number {
  if (!text) return 0;
  const count = counter;
  if (!count) return Math.ceil(text.length / 3);
  if (text.length <= SLICE) return count(text);
  let n = 0;
  for (let at = 0; at < text.length; at += SLICE) n += count(text.slice(at, at + SLICE));
  return n;
}

/** Per-message framing tokens of chat formats (role and separators). */
const PER_MESSAGE = 4;

/** Every string in a JSON value (message content parts, tool schemas...), depth-bounded. */
function collectText(value: unknown, out: string[], depth = 0): void {
  if (depth > 32 || value === null || value === undefined) return;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) collectText(v, out, depth + 1);
  else if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      // Binary payloads (images, audio) are not text tokens.
      if (k === 'image_url' || k === 'input_audio' || k === 'data' || k === 'file_data') continue;
      if (typeof v === 'string' && (k === 'type' || k === 'role')) continue;
      collectText(v, out, depth + 1);
    }
  }
}

/**
 * The prompt's tokens of a request body of any text route: chat `messages`, Anthropic
 * `system`/`messages`, Responses `instructions`/`input`, completions `prompt`, embeddings
 * `input` (token arrays counted by length), plus `tools`.
 */
export function countPromptTokens(body: unknown): number {
  if (!body || typeof body !== 'object') return 0;
  const b = body as Record<string, unknown>;
  let total = 0;
  const texts: string[] = [];
  if (Array.isArray(b.messages)) total += PER_MESSAGE * b.messages.length + 3;
  for (const key of ['messages', 'system', 'instructions', 'prompt', 'tools', 'functions']) collectText(b[key], texts);
  const input = b.input;
  if (Array.isArray(input) && input.length > 0 && (typeof input[0] === 'number' || Array.isArray(input[0]))) {
    // Embeddings given as token ids: one id per token.
    for (const item of input) total += Array.isArray(item) ? item.length : 1;
  } else collectText(input, texts);
  for (const text of texts) total += countText(text);
  return total;
}
