import { defineService } from '../../../kernel/engine/services.js';
import type { ApiBudgets } from './api-budgets.js';
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
