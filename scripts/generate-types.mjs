#!/usr/bin/env node
// Generates src/generated/**/*.ts from schema/**/*.schema.json with json-schema-to-typescript.
// `--check` regenerates in memory and fails when the committed types differ (schema/type drift).
import { readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from 'json-schema-to-typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const schemaDir = join(root, 'schema');
const outDir = join(root, 'src', 'generated');
const check = process.argv.includes('--check');

const banner = (source) =>
  `/* eslint-disable */\n/**\n * DO NOT EDIT: generated from ${source} by scripts/generate-types.mjs.\n * Edit the schema and run \`npm run gen:types\`; \`npm test\` fails when they drift apart.\n */\n`;

async function schemaFiles(dir) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await schemaFiles(full)));
    else if (entry.name.endsWith('.schema.json')) out.push(full);
  }
  return out.sort();
}

const drifted = [];
for (const file of await schemaFiles(schemaDir)) {
  const schema = JSON.parse(await readFile(file, 'utf8'));
  const rel = relative(schemaDir, file).split('\\').join('/');
  const ts = await compile(schema, schema.title ?? 'Schema', {
    bannerComment: banner(`schema/${rel}`),
    cwd: dirname(file),
    declareExternallyReferenced: true,
    style: { singleQuote: true, printWidth: 110 },
  });
  const target = join(outDir, rel.replace(/\.schema\.json$/, '.ts'));
  if (check) {
    let current = '';
    try {
      current = await readFile(target, 'utf8');
    } catch {
      /* missing */
    }
    if (current !== ts) drifted.push(relative(root, target));
  } else {
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, ts);
  }
}
if (check) {
  if (drifted.length) {
    console.error(`Generated types are out of date with schema/ (run npm run gen:types):\n  ${drifted.join('\n  ')}`);
    process.exit(1);
  }
  console.log('generated types match schema/');
}
