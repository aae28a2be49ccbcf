/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/cache.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Answers identical requests from the response cache when the target's routing config sets cache mode simple; sets x-gateway-cache-status. It takes no settings: the cache is the routing config's (and cache.* of the gateway config).
 */
export interface CacheStageConfig {}
