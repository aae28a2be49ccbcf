import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

/** A recorded whole answer: test/fixtures/<provider>/<name>.json. */
export function fixtureJson(provider: string, name: string): any {
  return JSON.parse(readFileSync(join(FIXTURES, provider, `${name}.json`), 'utf8'));
}

/** Recorded stream chunks: test/fixtures/<provider>/<name>.chunks.txt, split into events. */
export function fixtureChunks(provider: string, name: string): string[] {
  const text = readFileSync(join(FIXTURES, provider, `${name}.chunks.txt`), 'utf8');
  return text.split(/(?<=\n\n)/).filter((c) => c.trim() !== '');
}

export function fixtureBytes(provider: string, file: string): Buffer {
  return readFileSync(join(FIXTURES, provider, file));
}
