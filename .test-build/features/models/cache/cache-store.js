/** Entries larger than this (bytes of body or chunk text) are not cached. */
export const MAX_CACHED_BYTES = 4 * 1024 * 1024;
//# sourceMappingURL=cache-store.js.map