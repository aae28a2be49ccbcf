/**
 * JSON as it arrives from a caller or a provider: unknown until narrowed. These helpers read
 * it without `any`: a field that is not what the reader expects reads as absent.
 */

/** A JSON object (what JSON.parse gives for `{...}`). */
export type JsonObject = Record<string, unknown>;

/** Whether the value is a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value as an object: itself when it is one, else an empty object. */
export function objectOf(value: unknown): JsonObject {
  return isJsonObject(value) ? value : {};
}

/** The value as an array: itself when it is one, else an empty array. */
export function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The objects of an array (other items left out); an empty array when it is not one. */
export function objectsOf(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

/** The value when it is a string, else undefined. */
export function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The value when it is a finite number, else undefined. */
export function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** JSON's white space: space, tab, line feed, carriage return. */
function isJsonSpace(c: number | undefined): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

/**
 * Whether text can be a JSON object by its ends alone (what an OpenAI stream event's data must
 * be): the first and last characters other than white space are `{` and `}`. Nothing is parsed;
 * only white space at the ends is walked.
 */
export function endsLikeJsonObject(text: string): boolean {
  let start = 0;
  let end = text.length - 1;
  while (start < end && isJsonSpace(text.charCodeAt(start))) start++;
  while (end > start && isJsonSpace(text.charCodeAt(end))) end--;
  return start < end && text.charCodeAt(start) === OPEN_BRACE && text.charCodeAt(end) === CLOSE_BRACE;
}

/**
 * Whether bytes can be a JSON object or array by their ends alone (an upstream's JSON answer
 * passed through unparsed): the first and last bytes other than white space are `{` and `}`, or
 * `[` and `]`. Nothing is parsed; only white space at the ends is walked.
 */
export function endsLikeJsonContainer(raw: Uint8Array): boolean {
  let start = 0;
  let end = raw.length - 1;
  while (start < end && isJsonSpace(raw[start])) start++;
  while (end > start && isJsonSpace(raw[end])) end--;
  if (start >= end) return false;
  const first = raw[start];
  const last = raw[end];
  return (first === OPEN_BRACE && last === CLOSE_BRACE) || (first === OPEN_BRACKET && last === CLOSE_BRACKET);
}
