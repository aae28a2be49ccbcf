import { defineService } from '../../../kernel/engine/services.js';
import type { AuditEntry, AuditLog } from './audit-log.js';

export type { AuditEntry, AuditRecord } from './audit-log.js';

/**
 * The audit log of admin writes: `services.require(AUDIT).recordAudit(ctx, {action, resource, id,
 * before, after})` after each write (secrets are removed before anything is kept).
 */
export const AUDIT = defineService<AuditLog>('audit-log');

/**
 * The audit entry of a config reload: of the file `file`, asked through the admin API (`api`: the
 * entry's actor is the caller) or by SIGHUP; `status` `reloaded`, or `requested` when a cluster
 * worker asked its primary to reload every worker.
 */
export function configReloadEntry(status: 'reloaded' | 'requested', file: string, trigger: 'api' | 'SIGHUP'): AuditEntry {
  return { action: 'config.reload', resource: 'config', id: file, after: { status, file, trigger } };
}
