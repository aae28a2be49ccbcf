#!/usr/bin/env node
// Checks the shipped price table (prices/*.yaml): its shape against
// schema/governance/price-table.schema.json, and its units (prices per token, not per million;
// cache reads no dearer than input; every entry dated and sourced). `npm test` runs it first.
// Usage: node scripts/check-prices.mjs [folder]   (PRICE_CHECK_BUILD names another build than dist/)
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..');
const build = resolve(process.env.PRICE_CHECK_BUILD ?? join(root, 'dist'));
const { PriceTable } = await import(pathToFileURL(join(build, 'features', 'governance', 'prices', 'price-table.js')).href);
const dir = process.argv[2] ? resolve(process.argv[2]) : undefined;
const { table, problems } = PriceTable.read(dir);
for (const p of problems) console.error(`${p.file}: ${p.path ? `${p.path}: ` : ''}${p.message}`);
if (problems.length) process.exit(1);
let models = 0;
const providers = [...table.providers()];
for (const provider of providers) models += [...table.models(provider)].length;
console.log(`price table ok: ${models} models of ${providers.length} providers`);
