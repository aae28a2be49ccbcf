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
import { INSERT_ROWS, PIN_MIGRATIONS, PinStore } from '../../../../src/features/mcp/pins/pin-store.js';
import { ToolPins, type PinMode } from '../../../../src/features/mcp/pins/tool-pins.js';
import { dropSharedState, PG_URL } from '../../../helpers/shared-stores.js';
import { captureLogger } from '../../../helpers/log-capture.js';

const silent = pino({ level: 'silent' });

/** What a store was asked: statements (outside a transaction or inside one) and transactions. */
interface Calls {
  statements: number;
  transactions: number;
}

/** `store`, counting the statements and transactions asked of it. */
function counting(store: SqlStore, calls: Calls): SqlStore {
  const count = <T>(run: () => Promise<T>) => {
    calls.statements++;
    return run();
  };
  return {
    dialect: store.dialect,
    query: (sql, params) => count(() => store.query(sql, params)),
    execute: (sql, params) => count(() => store.execute(sql, params)),
    transaction: (fn) => {
      calls.transactions++;
      return store.transaction((tx) =>
        fn({ dialect: tx.dialect, query: (sql, params) => count(() => tx.query(sql, params)), execute: (sql, params) => count(() => tx.execute(sql, params)) }),
      );
    },
    migrate: (migrations) => store.migrate(migrations),
    close: () => store.close(),
  };
}

/** `n` tools named tool_00000, tool_00001... described by `description`. */
const manyTools = (n: number, description = 'does nothing') =>
  Array.from({ length: n }, (_, i) => ({ name: `tool_${String(i).padStart(5, '0')}`, description: `${description} ${i}`, inputSchema: { type: 'object' } }));

/** The rows the first list of `tools` pins (trust on first use): each tool's digest and canonical text, the baseline mark. */
const firstPins = (server: string, tools: Array<Record<string, unknown>>) => [
  { server, kind: 'baseline', name: 'tool', digest: '-', definition: '', pendingDigest: null, pendingDefinition: null },
  ...tools.map((t) => {
    const pin = pinOf(t, TOOL_FIELDS);
    return { server, kind: 'tool', name: t.name as string, digest: pin.digest, definition: pin.text, pendingDigest: null, pendingDefinition: null };
  }),
];

const byName = (a: { kind: string; name: string }, b: { kind: string; name: string }) => (a.kind + a.name < b.kind + b.name ? -1 : a.kind + a.name > b.kind + b.name ? 1 : 0);

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

    it("pins a first list of 10,000 tools in one transaction of a few multi-row INSERTs, the rows each tool's own", async () => {
      const calls: Calls = { statements: 0, transactions: 0 };
      const pins = new ToolPins(new Map([['big', 'strict']]), new PinStore(counting(stores[0]!, calls)), new AuditLog(silent), silent);
      await pins.load();
      const tools = manyTools(10_000);
      calls.statements = 0;
      calls.transactions = 0;
      expect(pins.screen('big', tools)).toHaveLength(10_000);
      await pins.written();
      // 10,001 rows (the tools and the baseline mark): INSERT_ROWS a statement, the rest in at most log2(INSERT_ROWS) + 1 more.
      expect(calls.transactions).toBe(1);
      expect(calls.statements).toBeGreaterThanOrEqual(Math.ceil(10_001 / INSERT_ROWS));
      expect(calls.statements).toBeLessThanOrEqual(Math.floor(10_001 / INSERT_ROWS) + Math.log2(INSERT_ROWS) + 1);
      const stored = await new PinStore(stores[1]!).rows(['big']);
      expect(stored.sort(byName)).toEqual(firstPins('big', tools).sort(byName));
      // Another instance finds them all pinned: the same list is served whole, nothing is held.
      const other = new ToolPins(new Map([['big', 'strict']]), new PinStore(stores[1]!), new AuditLog(silent), silent);
      await other.load();
      expect(other.screen('big', tools)).toHaveLength(10_000);
      expect(other.refuses('big', 'tool_09999')).toBeUndefined();
      pins.close();
      other.close();
    });

    it('keeps the pins another instance wrote first (two first lists at once: the first write wins, the other is held as a change)', async () => {
      const loadFor = async () => {
        const p = new ToolPins(new Map([['race', 'strict']]), new PinStore(stores[0]!), new AuditLog(silent), silent);
        await p.load();
        return p;
      };
      const one = await loadFor();
      const two = await loadFor();
      // Both loaded before either wrote: each takes its list as the first. 1,500 and 1,600 tools: across an INSERT's rows.
      const seenByOne = manyTools(1_500, 'first');
      const seenByTwo = manyTools(1_600, 'second');
      one.screen('race', seenByOne);
      await one.written();
      two.screen('race', seenByTwo);
      await two.written();
      // The second instance's rows of names already pinned are left out, its others land.
      const stored = await new PinStore(stores[1]!).rows(['race']);
      expect(stored.sort(byName)).toEqual([...firstPins('race', seenByOne), ...firstPins('race', seenByTwo.slice(1_500)).slice(1)].sort(byName));
      const three = await loadFor();
      expect(three.screen('race', seenByTwo)).toEqual(seenByTwo.slice(1_500));
      expect(three.refuses('race', 'tool_01499')).toMatchObject({ code: -32006, data: { changed: ['description'] } });
      for (const p of [one, two, three]) p.close();
    });

    it('a pin write that fails is told once per server (how many pins), and the pins are read from the store again', async () => {
      const { logger, lines } = captureLogger('warn');
      const failing: SqlStore = {
        dialect: stores[0]!.dialect,
        query: (sql, params) => stores[0]!.query(sql, params),
        execute: (sql, params) => stores[0]!.execute(sql, params),
        transaction: () => Promise.reject(new Error('the store is away')),
        migrate: (m) => stores[0]!.migrate(m),
        close: async () => undefined,
      };
      const pins = new ToolPins(
        new Map([
          ['lost', 'warn'],
          ['lost2', 'warn'],
        ]),
        new PinStore(failing),
        new AuditLog(silent),
        logger,
      );
      await pins.load();
      pins.screen('lost', manyTools(3));
      pins.screen('lost2', manyTools(2));
      await pins.written();
      const warned = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'could not store an MCP pin');
      expect(warned.map((l) => [l.mcpServer, l.pins, l.err])).toEqual([
        ['lost', 4, 'the store is away'],
        ['lost2', 3, 'the store is away'],
      ]);
      // Nothing landed: read again, the server has no pins (its next list is a first list again).
      await pins.load();
      expect(await pins.pinnedNamed('lost', ['tool_00000'])).toEqual(new Map());
      expect(pins.screen('lost', manyTools(3))).toHaveLength(3);
      pins.close();
    });
  });
}
