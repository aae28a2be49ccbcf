/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/governance/tenants.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Organisations, teams and users from the config file (read-only through the admin API, source: file). Keys belong to a user and a team; teams to an organisation.
 */
export interface TenantsConfig {
  organizations?: {
    [k: string]: OrganizationConfig;
  };
  teams?: {
    [k: string]: TeamConfig;
  };
  users?: {
    [k: string]: UserConfig;
  };
}
export interface OrganizationConfig {
  name?: string;
  metadata?: {
    [k: string]: unknown;
  };
}
export interface TeamConfig {
  name?: string;
  organization?: string;
  /**
   * Catalogue models (names or globs) the team's keys may use at most.
   */
  models?: string[];
  metadata?: {
    [k: string]: unknown;
  };
}
export interface UserConfig {
  name?: string;
  email?: string;
  team?: string;
  /**
   * admin, viewer or team_admin give access to the admin API.
   */
  roles?: string[];
  metadata?: {
    [k: string]: unknown;
  };
}
