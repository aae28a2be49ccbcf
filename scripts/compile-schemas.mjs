// Build step (after tsc): compiles every schema of schema/ into validator functions, written as
// one module beside the build's main.js (`<out>/schema-validators.cjs`), so that start-up
// compiles no schema. The module carries the hash of the schema/ texts it was made from; a
// gateway whose schema/ differs compiles at run time instead. Options and the hash come from
// the build itself (kernel/config/ajv-options.js, precompiled-validators.js).
//
//   node scripts/compile-schemas.mjs [outDir]     (default: dist)
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import standaloneModule from 'ajv/dist/standalone/index.js';

const addFormats = addFormatsModule.default ?? addFormatsModule;
const standaloneCode = standaloneModule.default ?? standaloneModule;
const out = resolve(process.argv[2] ?? 'dist');
const schemaDir = resolve('schema');
const load = (path) => import(pathToFileURL(join(out, path)).href);
const { SCHEMA_AJV_OPTIONS, EXTENSION_AJV_OPTIONS, PRECOMPILED_FILE } = await load('kernel/config/ajv-options.js');
/** The folders of schema/ that hold extension config schemas (stages, and the kinds features add): compiled with EXTENSION_AJV_OPTIONS. */
const EXTENSION_SCHEMA_DIRS = ['stages/', 'checks/', 'auth-modes/', 'providers/'];
const { schemaTextsHash } = await load('kernel/config/precompiled-validators.js');

const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full);
    else if (name.endsWith('.schema.json')) {
      const text = readFileSync(full, 'utf8');
      files.push({ rel: relative(schemaDir, full).split('\\').join('/'), text, schema: JSON.parse(text) });
    }
  }
};
walk(schemaDir);

/** One CommonJS module text holding a validator per schema $id (refs between them resolved). */
function moduleOf(options, chosen) {
  const ajv = new Ajv({ ...options, code: { source: true } });
  addFormats(ajv);
  for (const { schema } of chosen) ajv.addSchema(schema);
  const refs = Object.fromEntries(chosen.map(({ schema }) => [schema.$id, schema.$id]));
  return standaloneCode(ajv, refs);
}

const extensionFiles = files.filter((f) => EXTENSION_SCHEMA_DIRS.some((dir) => f.rel.startsWith(dir)));
// Each extension schema compiles alone at run time (its own Ajv, defaults filled in): the same here.
const extensions = extensionFiles.map(({ schema }) => moduleOf(EXTENSION_AJV_OPTIONS, [{ schema }]));
const text = [
  '"use strict";',
  `exports.schemaHash = ${JSON.stringify(schemaTextsHash(files))};`,
  `exports.schemas = (function () { const exports = {}; ${moduleOf(SCHEMA_AJV_OPTIONS, files)}; return exports; })();`,
  `exports.extensions = Object.assign({}, ${extensions.map((code) => `(function () { const exports = {}; ${code}; return exports; })()`).join(', ')});`,
  '',
].join('\n');
writeFileSync(join(out, PRECOMPILED_FILE), text);
console.log(`compile-schemas: ${files.length} schemas -> ${relative(process.cwd(), join(out, PRECOMPILED_FILE))} (${(text.length / 1024).toFixed(0)} KB)`);
