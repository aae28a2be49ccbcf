import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Redis } from 'ioredis';
import pg from 'pg';

/** The Redis and PostgreSQL every test machine runs (tests isolate themselves by key prefix or schema). */
export const REDIS_URL = 'redis://127.0.0.1:6379';
export const PG_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fetch that sends each request to the next instance in turn (no sticky balancing at all). */
export function alternating(bases: string[], seen: string[]): FetchLike {
  let next = 0;
  return (input, init) => {
    const url = new URL(String(input));
    const base = new URL(bases[next++ % bases.length]!);
    url.host = base.host;
    seen.push(`${init?.method ?? 'GET'} ${base.port}`);
    return fetch(url, init);
  };
}

/** Removes what a test's gateways kept in the shared store: its Redis keys (by prefix) or its PostgreSQL schema. */
export async function dropSharedState(shared: 'redis' | 'postgres', prefix: string, schema: string): Promise<void> {
  if (shared === 'redis') {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  } else {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
}

/** The config that puts a test's gateways on the shared store: Redis under `prefix`, or PostgreSQL in `schema`. */
export function sharedStoreConfig(shared: 'redis' | 'postgres', prefix: string, schema: string): Record<string, unknown> {
  return shared === 'redis' ? { redis: { url: REDIS_URL, keyPrefix: prefix } } : { storage: { type: 'postgres', url: PG_URL, schema } };
}
