/**
 * The public entry of the governance feature: what other features and the stages may use (metering,
 * prices, the model catalogue, the audit log of admin writes).
 * Everything else in this folder is its own business (eslint/layers.js refuses imports of it
 * from another feature).
 */
export { METER, METER_DEPS } from './metering/metering-services.js';
export { noteStreamText, type StreamNotes } from './metering/stream-text.js';
export { costOf } from './prices/cost.js';
export { usageClasses } from './prices/usage-classes.js';
export { AUDIT, configReloadEntry, type AuditEntry } from './audit/audit-services.js';
export { CATALOGUE_MODEL, type CatalogueChoice } from './governance-slots.js';
export { CATALOGUE } from './governance-services.js';
export type { Catalogue } from './catalogue/catalogue.js';
export { teamModels, teamModelsReady } from './catalogue/model-listing.js';
export { API_TEAMS } from './tenants/tenant-services.js';
export { governanceFeature } from './governance-feature.js';
