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
