import { defineService } from '../../../kernel/engine/services.js';
import type { ApiBudgets } from './api-budgets.js';
import type { ApiTeams } from './api-teams.js';
import type { TenantService } from './tenant-service.js';

export type { BudgetSubjects } from './api-budgets.js';
export type { TenantObject } from './tenant-service.js';

/** Organisations, teams, users and budgets of the config file and of the admin API. */
export const TENANTS = defineService<TenantService>('tenants');

/**
 * The budgets of /v1/admin/budgets that apply to a request (`applicable(subjects)`: ApplicableBudget[]
 * with the row id as id), cached per instance: the budget engine's source of API budgets.
 */
export const API_BUDGETS = defineService<ApiBudgets>('api-budgets');

/** The teams of /v1/admin/teams as the request path reads their `models` (cached per instance). */
export const API_TEAMS = defineService<ApiTeams>('api-teams');
