/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/console-ui.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * The admin console's browser app at /ui (when ui.enabled): its static files from dist/ui through an express app, index.html for any other path under /ui, and strict security headers (Content-Security-Policy default-src 'self').
 */
export interface ConsoleUiStageConfig {
  /**
   * Cache-Control max-age of the app's static files, in seconds (index.html is never cached).
   */
  maxAge?: number;
}
