import type { StreamFormat } from '../../../contract/stream-format.js';

/**
 * A cached answer: a whole JSON body, or a completed stream: the chunk texts of an OpenAI
 * stream, or (Anthropic and Responses formats) each stream part as JSON.
 */
export type CachedAnswer = { kind: 'json'; status: number; body: string } | { kind: 'stream'; status: number; format: StreamFormat; chunks: string[] };

/** Where cached answers live (memory, or Redis shared by instances). */
export interface CacheStore {
  get(key: string): Promise<CachedAnswer | undefined>;
  set(key: string, value: CachedAnswer, ttlMs: number): Promise<void>;
}

/** Entries larger than this (bytes of body or chunk text) are not cached. */
export const MAX_CACHED_BYTES = 4 * 1024 * 1024;
