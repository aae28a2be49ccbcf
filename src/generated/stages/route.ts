/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/route.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Decides where the request goes: the routing config of x-gateway-config (JSON or a name under configs), else this stage's defaultConfig or routing.defaultConfig, else the one provider the headers name. The fallback stage after it runs the decision.
 */
export interface RouteStageConfig {
  /**
   * A config under `configs` used for requests of this pipeline that send no x-gateway-config (replaces routing.defaultConfig here).
   */
  defaultConfig?: string;
}
