import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { PostgresStore } from '../../../../src/kernel/store/postgres/postgres-store.js';
import { SqliteStore } from '../../../../src/kernel/store/sqlite/sqlite-store.js';
import type { SqlStore } from '../../../../src/kernel/store/sql-store.js';
import { AuditLog } from '../../../../src/features/mcp/audit.js';
import { canonicalJson, changedFields, pinOf, TOOL_FIELDS } from '../../../../src/features/mcp/pins/canonical-definition.js';
import { PIN_MIGRATIONS, PinStore } from '../../../../src/features/mcp/pins/pin-store.js';
import { ToolPins, type PinMode } from '../../../../src/features/mcp/pins/tool-pins.js';
import { dropSharedState, PG_URL } from '../../../helpers/shared-stores.js';

const silent = pino({ level: 'silent' });

describe('the canonical definition of a tool', () => {
  it('is the same JSON whatever the order of keys, and its SHA-256 follows every pinned field', () => {
    const a = { name: 't', inputSchema: { type: 'object', properties: { b: { type: 'string' }, a: { type: 'number' } } }, description: 'd' };
    const b = { description: 'd', inputSchema: { properties: { a: { type: 'number' }, b: { type: 'string' } }, type: 'object' }, name: 't' };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"description":"d","inputSchema":{"properties":{"a":{"type":"number"},"b":{"type":"string"}},"type":"object"},"name":"t"}');
    expect(pinOf(a, TOOL_FIELDS).digest).toBe(pinOf(b, TOOL_FIELDS).digest);
    expect(pinOf(a, TOOL_FIELDS).digest).toMatch(/^[0-9a-f]{64}$/);
    // A field outside the definition (a server's own extra) does not move the pin; every pinned one does.
    expect(pinOf({ ...a, extra: 1 }, TOOL_FIELDS).digest).toBe(pinOf(a, TOOL_FIELDS).digest);
    for (const field of TOOL_FIELDS) {
      expect(pinOf({ ...a, [field]: { changed: field } }, TOOL_FIELDS).digest).not.toBe(pinOf(a, TOOL_FIELDS).digest);
    }
    // Array order is meaning (enum, required): kept.
    expect(canonicalJson({ required: ['a', 'b'] })).not.toBe(canonicalJson({ required: ['b', 'a'] }));
  });

  it('names the fields that changed', () => {
    const before = pinOf({ name: 't', description: 'x', annotations: { readOnlyHint: true } }, TOOL_FIELDS).text;
    const after = pinOf({ name: 't', description: 'y', annotations: { readOnlyHint: true }, _meta: { k: 1 } }, TOOL_FIELDS).text;
    expect(changedFields(before, after, TOOL_FIELDS)).toEqual(['description', '_meta']);
  });
});

for (const kind of ['sqlite', 'postgres'] as const) {
  describe(`pins in the store every instance shares (${kind})`, () => {
    const schema = `pins_${process.pid}_${Date.now()}`;
    let dir: string;
    let stores: SqlStore[];

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gw-pins-unit-'));
      if (kind === 'sqlite') {
        const store = new SqliteStore(join(dir, 'gateway.db'));
        stores = [store, store];
      } else {
        const a = new PostgresStore(PG_URL, schema);
        const b = new PostgresStore(PG_URL, schema);
        await a.open();
        await b.open();
        stores = [a, b];
      }
      await stores[0]!.migrate(PIN_MIGRATIONS);
      await stores[1]!.migrate(PIN_MIGRATIONS);
    });
    afterAll(async () => {
      for (const s of new Set(stores)) await s.close();
      if (kind === 'postgres') await dropSharedState('postgres', '', schema);
      rmSync(dir, { recursive: true, force: true });
    });

    const instance = (store: SqlStore, mode: PinMode) => new ToolPins(new Map([['s', mode]]), new PinStore(store), new AuditLog(silent), silent);
    const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

    it('the first list one instance sees pins the tools for the other; a change seen there is held under strict, approved once for both', async () => {
      const one = instance(stores[0]!, 'strict');
      await one.load();
      const tools = [
        { name: 'a', description: 'A', inputSchema: { type: 'object' } },
        { name: 'b', description: 'B', inputSchema: { type: 'object' } },
      ];
      expect(one.screen('s', tools).map((t) => t.name)).toEqual(['a', 'b']);
      await settle();

      const two = instance(stores[1]!, 'strict');
      await two.load();
      const changedTools = [{ ...tools[0]!, description: 'A, and more' }, tools[1]!, { name: 'c', description: 'C', inputSchema: { type: 'object' } }];
      expect(two.screen('s', changedTools).map((t) => t.name)).toEqual(['b']);
      expect(two.refuses('s', 'a')).toMatchObject({ code: -32006, data: { server: 's', tool: 'a', changed: ['description'] } });
      expect(two.refuses('s', 'c')?.reason).toMatch(/new since/);
      expect(two.refuses('s', 'b')).toBeUndefined();
      await settle();

      // A third instance that has listed nothing yet holds the call too: the change is noted in the store.
      const three = instance(stores[1]!, 'strict');
      await three.load();
      expect(three.refuses('s', 'a')).toMatchObject({ code: -32006, data: { changed: ['description'] } });
      expect(three.refuses('s', 'b')).toBeUndefined();
      three.close();

      // The first instance approves what the second saw (the store holds it).
      expect(await one.approve('s', 'a')).toMatchObject({ digest: pinOf(changedTools[0]!, TOOL_FIELDS).digest });
      expect(await one.approve('s', 'a')).toBeUndefined();
      await two.load();
      expect(two.refuses('s', 'a')).toBeUndefined();
      expect(two.screen('s', changedTools).map((t) => t.name)).toEqual(['a', 'b']);
      one.close();
      two.close();
    });

    it('reads the pins of a page of tools at once, by name (those pinned; a change waiting shows its digest)', async () => {
      const one = instance(stores[0]!, 'warn');
      await one.load();
      const pinned = await one.pinnedNamed('s', ['a', 'b', 'c', 'never-listed']);
      expect([...pinned.keys()].sort()).toEqual(['a', 'b', 'c']);
      expect(pinned.get('b')).toMatchObject({ name: 'b', kind: 'tool', pendingDigest: null, digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
      // `a` was approved to its changed definition; `c` came later under strict and was never approved.
      expect(pinned.get('c')).toMatchObject({ digest: '', pendingDigest: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect(await one.pinnedNamed('s', [])).toEqual(new Map());
      one.close();
    });
  });
}
