import type { Capability } from '../../../kernel/capability.js';
import { getStore } from '../../../kernel/store/store-capability.js';
import { USER_ROLES } from '../../auth/index.js';
import { AUDIT_MIGRATIONS, AuditLog } from '../audit/audit-log.js';
import { AUDIT } from '../audit/audit-services.js';
import { ApiBudgets } from './api-budgets.js';
import { ApiTeams } from './api-teams.js';
import { TenantService } from './tenant-service.js';
import { API_BUDGETS, API_TEAMS, TENANTS } from './tenant-services.js';
import { TENANT_MIGRATIONS, TenantStore } from './tenant-store.js';

/**
 * Tenants and the admin API: organisations, teams, users and budgets (config file and store),
 * the users' roles for authenticate's `roles`, the API budgets the budget engine reads, the
 * audit log, (the stages admin-resources and token-governance are registered by the governance capability).
 */
export const tenantsCapability: Capability = {
  name: 'tenants',
  async setup(services) {
    const store = getStore(services);
    await store.migrate(TENANT_MIGRATIONS);
    await store.migrate(AUDIT_MIGRATIONS);
    const tenantStore = new TenantStore(store);
    const budgets = services.provide(API_BUDGETS, new ApiBudgets(tenantStore));
    const teams = services.provide(API_TEAMS, new ApiTeams(tenantStore));
    const tenants = services.provide(
      TENANTS,
      new TenantService(tenantStore, services.config.tenants, services.config.budgets, (kind) => {
        if (kind === 'budget') budgets.invalidate();
        else if (kind === 'team') teams.invalidate();
      }),
    );
    services.provide(AUDIT, new AuditLog(store));
    services.provide(USER_ROLES, (user) => tenants.userRoles(user));
  },
};
