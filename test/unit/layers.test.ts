import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from '../helpers/built-gateway.js';

/**
 * The folders of src/ import each other in one direction only: no loop between two folders
 * (a folder and its own subfolders aside). ESLint (eslint/layers.js) keeps the layers; this
 * keeps the folders of one layer from leaning on each other both ways.
 */
const SRC = join(ROOT, 'src');

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) sourceFiles(full, out);
    else if (full.endsWith('.ts')) out.push(full);
  }
  return out;
}

function folderOf(file: string): string {
  return relative(SRC, dirname(file)).split('\\').join('/') || '.';
}

function importGraph(): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
      const target = resolve(dirname(file), m[1]!).replace(/\.js$/, '.ts');
      const to = folderOf(target);
      if (from === to || from === '.' || to === '.' || from.startsWith(`${to}/`) || to.startsWith(`${from}/`)) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      edges.get(from)!.set(to, `${relative(SRC, file)} -> ${relative(SRC, target)}`);
    }
  }
  return edges;
}

/** Folder loops, each as the import lines that close it. */
function loops(edges: Map<string, Map<string, string>>): string[][] {
  const found: string[][] = [];
  for (const [a, targets] of edges) {
    for (const [b, line] of targets) {
      // A path back from b to a closes a loop.
      const seen = new Set<string>([b]);
      const queue: Array<{ at: string; via: string[] }> = [{ at: b, via: [line] }];
      while (queue.length) {
        const { at, via } = queue.shift()!;
        for (const [next, l] of edges.get(at) ?? []) {
          if (next === a) {
            if (a < b) found.push([...via, l]);
            queue.length = 0;
            break;
          }
          if (!seen.has(next)) {
            seen.add(next);
            queue.push({ at: next, via: [...via, l] });
          }
        }
      }
    }
  }
  return found;
}

describe('the folders of src/', () => {
  it('import each other without loops', () => {
    expect(loops(importGraph())).toEqual([]);
  });

  it('the kernel imports nothing from contract, features or stages; the contract imports nothing outside itself', () => {
    const edges = importGraph();
    const outOf = (prefix: string) =>
      [...edges].flatMap(([from, targets]) => (from === prefix || from.startsWith(`${prefix}/`) ? [...targets].map(([to, line]) => ({ to, line })) : []));
    expect(
      outOf('kernel')
        .filter((e) => /^(contract|features|stages)/.test(e.to))
        .map((e) => e.line),
    ).toEqual([]);
    expect(
      outOf('contract')
        .filter((e) => !e.to.startsWith('contract'))
        .map((e) => e.line),
    ).toEqual([]);
  });
});
