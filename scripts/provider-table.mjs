#!/usr/bin/env node
// Writes the README's table of OpenAI-compatible providers from their data files (providers/*.yaml),
// between the <!-- provider-table:start --> and <!-- provider-table:end --> lines.
// `--check` fails when the README's table differs from the data files (`npm test` runs it first).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const root = join(import.meta.dirname, '..');
export const START = '<!-- provider-table:start -->';
export const END = '<!-- provider-table:end -->';

const FAMILIES = ['audio', 'files', 'batches', 'fine_tuning', 'responses'];
const SHORT = {
  'chat.completions': 'chat',
  completions: 'completions',
  embeddings: 'embeddings',
  'images.generations': 'images',
  'images.edits': 'image edits',
  'models.list': 'models',
  rerank: 'rerank',
  moderations: 'moderations',
  'openai-api': 'every OpenAI operation',
  fine_tuning: 'fine-tuning',
};

/** The data files of `dir`, by file name. */
export function readData(dir = join(root, 'providers')) {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.yaml'))
    .sort()
    .map((n) => parse(readFileSync(join(dir, n), 'utf8')));
}

function operations(d) {
  const ops = [];
  for (const op of d.operations) {
    const short = SHORT[op] ?? (FAMILIES.includes(op) ? op : op.startsWith('audio.') ? 'audio' : op.split('.')[0]);
    if (!ops.includes(short)) ops.push(short);
  }
  if (d.models_endpoint && !ops.includes('models') && !ops.includes(SHORT['openai-api'])) ops.push('models');
  return ops.join(', ');
}

function requestPath(d) {
  const chat = d.operations.includes('chat.completions') || d.operations.includes('openai-api');
  const op = chat ? 'chat.completions' : d.operations[0];
  const path = d.paths?.[op] ?? (chat ? '/chat/completions' : `/${op.replace(/\./g, '/')}`);
  return `\`<baseUrl>${path}\``;
}

function includes(d) {
  const path = d.base_url.replace(/^https?:\/\/[^/]+/, '');
  return path ? `\`${path}\`` : 'nothing';
}

function key(d) {
  const required = d.auth.required ?? d.kind === 'hosted';
  const how = `\`${d.auth.header}: ${d.auth.prefix ?? ''}<key>\``;
  return required ? how : `${how}, optional`;
}

function options(d) {
  return (d.options ?? []).map((o) => `\`x-gateway-${o.field.replace(/_/g, '-')}\``).join(', ');
}

/** The table's Markdown, one row per data file. */
export function renderTable(data = readData()) {
  const lines = [
    '| Provider (`x-gateway-provider`) | Default base URL | Request goes to | `baseUrl` includes | Key sent as | Settings | Operations | API docs | Notes |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const d of data) {
    const notes = (d.notes ?? '').replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
    lines.push(`| \`${d.id}\` | \`${d.base_url}\` | ${requestPath(d)} | ${includes(d)} | ${key(d)} | ${options(d)} | ${operations(d)} | [${d.name}](${d.docs}) | ${notes} |`);
  }
  return lines.join('\n');
}

/** The README with its provider table replaced by `table`. */
export function withTable(readme, table) {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${START} ... ${END} section`);
  return `${readme.slice(0, start + START.length)}\n${table}\n${readme.slice(end)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = join(root, 'README.md');
  const readme = readFileSync(file, 'utf8');
  const wanted = withTable(readme, renderTable());
  if (process.argv.includes('--check')) {
    if (wanted !== readme) {
      console.error('README.md: the provider table differs from providers/*.yaml (run npm run gen:provider-table)');
      process.exit(1);
    }
    console.log(`README provider table matches providers/ (${readData().length} providers)`);
  } else {
    writeFileSync(file, wanted);
    console.log(`README provider table written (${readData().length} providers)`);
  }
}
