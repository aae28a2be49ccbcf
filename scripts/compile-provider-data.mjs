// Build step: parses providers/*.yaml once and writes them as JSON beside the build's main.js
// (`<out>/provider-data.json`), with the hash of the texts they were parsed from, so that
// start-up parses no YAML. A gateway whose providers/ differs from the build's reads the YAML.
// The hash is the one the gateway computes (features/models/providers/provider-data-files.js).
//
//   node scripts/compile-provider-data.mjs [outDir]     (default: dist)
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';

const out = resolve(process.argv[2] ?? 'dist');
const { providerDataTexts, PROVIDER_DATA_FILE } = await import(pathToFileURL(join(out, 'features', 'models', 'providers', 'provider-data-files.js')).href);
const { hash, files } = providerDataTexts(resolve('providers'));
const parsed = Object.fromEntries(files.map((f) => [f.name, parse(f.text)]));
writeFileSync(join(out, PROVIDER_DATA_FILE), JSON.stringify({ hash, files: parsed }));
console.log(`compile-provider-data: ${files.length} providers -> ${join(out, PROVIDER_DATA_FILE)}`);
