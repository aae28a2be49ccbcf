/**
 * The public entry of the governance feature: what other features may use (metering, prices, the
 * audit log of admin writes).
 * Everything else in this folder is its own business (eslint/layers.js refuses imports of it
 * from another feature).
 */
export { METER, METER_DEPS } from './metering/metering-services.js';
export { noteStreamText, type StreamNotes } from './metering/stream-text.js';
export { costOf } from './prices/cost.js';
export { usageClasses } from './prices/usage-classes.js';
export { AUDIT, configReloadEntry, type AuditEntry } from './audit/audit-services.js';
