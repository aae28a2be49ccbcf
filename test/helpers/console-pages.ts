/**
 * The console's main pages as the browser tests visit them: the hash path, the page's heading,
 * and what is on the page once its data is drawn (a CSS selector, and the text that element
 * shows when the selector alone would match too early).
 */
export const CONSOLE_PAGES: { path: string; title: string; ready: string; readyText?: string }[] = [
  { path: 'overview', title: 'Overview', ready: 'figure' },
  { path: 'keys', title: 'Keys', ready: 'table[aria-label="Keys"]' },
  { path: 'tenants', title: 'Organisations, teams and users', ready: 'table[aria-label="users"]' },
  { path: 'budgets', title: 'Budgets', ready: 'table[aria-label="Budgets"]' },
  { path: 'usage', title: 'Usage explorer', ready: 'table[aria-label="Usage"]' },
  { path: 'requests', title: 'Live requests', ready: 'p[role="status"]', readyText: 'Live:' },
  { path: 'models', title: 'Models and prices', ready: 'table[aria-label="Models"]' },
  { path: 'tools', title: 'Tool servers', ready: 'p', readyText: 'Tool servers come from' },
  { path: 'credentials', title: 'Credentials', ready: 'table[aria-label="Credentials"]' },
  { path: 'config', title: 'Config', ready: 'pre' },
  { path: 'audit', title: 'Audit log', ready: 'table[aria-label="Audit log"]' },
];
