import { defineService } from '../../../kernel/engine/services.js';
import type { AuditLog } from './audit-log.js';

export type { AuditEntry, AuditRecord } from './audit-log.js';

/**
 * The audit log of admin writes: `services.require(AUDIT).recordAudit(ctx, {action, resource, id,
 * before, after})` after each write (secrets are removed before anything is kept).
 */
export const AUDIT = defineService<AuditLog>('audit-log');
