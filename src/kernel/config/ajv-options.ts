/**
 * The options of the gateway's two kinds of validators, in one place: the precompiled
 * validators (scripts/compile-schemas.mjs, run by the build) are made with exactly these, and
 * validators compiled at run time (plugins' schemas, a build without precompiled ones) too.
 */

/** Documents of schema/ (config, pipelines, routing, requests): nothing coerced, no defaults filled in. */
export const SCHEMA_AJV_OPTIONS = { allErrors: true, strict: false, allowUnionTypes: true, useDefaults: false } as const;

/** Configs of extensions (stages, guardrail checks, auth modes, provider settings): defaults filled into a copy. */
export const EXTENSION_AJV_OPTIONS = { allErrors: true, strict: false, useDefaults: true, allowUnionTypes: true } as const;

/** File name of the precompiled validators, beside the build's main.js. */
export const PRECOMPILED_FILE = 'schema-validators.cjs';
