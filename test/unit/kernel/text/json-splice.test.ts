import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { spliceJsonMembers } from '../../../../src/kernel/text/json-splice.js';

type Json = Record<string, unknown>;

/** What the bytes must mean: the object with the members set (as JSON, so -0 reads as 0). */
function meaning(parsed: Json, members: Json): unknown {
  return JSON.parse(JSON.stringify({ ...parsed, ...members }));
}

function splice(text: string, members: Json): string | undefined {
  // The bytes are a body JSON.parse took (the gateway splices only those).
  JSON.parse(text);
  return spliceJsonMembers(Buffer.from(text), members)?.toString('utf8');
}

/** A key as a client may write it: every character as a \u escape. */
function escapedKey(name: string): string {
  return `"${[...name].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`;
}

const key = fc.string({ maxLength: 8 }).filter((k) => k !== '__proto__');
const object = fc.dictionary(key, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });

describe('spliceJsonMembers', () => {
  it('replaces a member in place and leaves every other byte as it was', () => {
    const text = '{ "messages" : [ {"role":"user","content":"say \\"model\\": hi } ]"} ],\n  "model":"fast" , "n": 1 }';
    expect(splice(text, { model: 'gpt-4o-mini' })).toBe('{ "messages" : [ {"role":"user","content":"say \\"model\\": hi } ]"} ],\n  "model":"gpt-4o-mini" , "n": 1 }');
  });

  it('appends a member the object lacks, after its last member, or into an empty object', () => {
    expect(splice('{"model":"a","stream":true}', { stream_options: { include_usage: true } })).toBe('{"model":"a","stream":true,"stream_options":{"include_usage":true}}');
    expect(splice(' { } ', { a: 1, b: [2] })).toBe(' { "a":1,"b":[2]} ');
  });

  it('gives up where the bytes cannot take the change: an escaped key, a duplicate key, a value JSON cannot write', () => {
    expect(splice('{"mod\\u0065l":"fast"}', { model: 'x' })).toBeUndefined();
    expect(splice('{"model":"a","model":"b"}', { model: 'x' })).toBeUndefined();
    // A duplicate written with escapes after the plain one: JSON.parse took the last ("b").
    expect(splice('{"model":"a","mod\\u0065l":"b"}', { model: 'x' })).toBeUndefined();
    expect(splice('{"model":"a","messages":[],"mod\\u0065l":"b"}', { model: 'x' })).toBeUndefined();
    // Written with a short escape (no \u): a name with a slash.
    expect(splice('{"a/b":1,"n":[],"a\\/b":2}', { 'a/b': 3 })).toBeUndefined();
    expect(splice('{"model":"a"}', { model: undefined })).toBeUndefined();
    expect(splice('{"model":"a"}', {})).toBe('{"model":"a"}');
  });

  it('means the object with the members set, however the object was written (fuzzed)', () => {
    fc.assert(
      fc.property(object, object, fc.constantFrom(undefined, 2, '\t'), fc.array(fc.boolean(), { maxLength: 6 }), (parsed, added, indent, reuse) => {
        // Members: some of the object's own keys (replaced), the rest new (appended).
        const own = Object.keys(parsed);
        const members: Json = { ...added };
        reuse.forEach((r, i) => {
          if (r && own[i] !== undefined) members[own[i]!] = added[Object.keys(added)[i] ?? ''] ?? i;
        });
        const text = JSON.stringify(parsed, null, indent);
        const out = splice(text, members);
        // Written by JSON.stringify: never given up.
        expect(out).toBeDefined();
        expect(JSON.parse(out!)).toEqual(meaning(parsed, members));
      }),
      { numRuns: 400 },
    );
  });

  it('finds the end of long strings full of quotes and backslashes (fuzzed)', () => {
    const tricky = fc.string({ unit: fc.constantFrom('"', '\\', 'a', '}', ']', ',', ':', '{', 'é'), maxLength: 120 });
    fc.assert(
      fc.property(fc.array(tricky, { maxLength: 4 }), tricky, (texts, name) => {
        const parsed: Json = { [name]: texts, model: 'fast', tail: { text: texts.join('') } };
        const text = JSON.stringify(parsed);
        const out = splice(text, { model: 'gpt-4o-mini', [`${name}!`]: name });
        expect(JSON.parse(out!)).toEqual(meaning(parsed, { model: 'gpt-4o-mini', [`${name}!`]: name }));
      }),
      { numRuns: 400 },
    );
  });

  it('with keys written as escapes, gives up or still means the object with the members set (fuzzed)', () => {
    fc.assert(
      fc.property(object, object, fc.array(fc.boolean(), { maxLength: 6 }), (parsed, members, escape) => {
        const text = `{${Object.entries(parsed)
          .map(([k, v], i) => `${escape[i] ? escapedKey(k) : JSON.stringify(k)}:${JSON.stringify(v)}`)
          .join(',')}}`;
        const out = splice(text, members);
        if (out !== undefined) expect(JSON.parse(out)).toEqual(meaning(parsed, members));
      }),
      { numRuns: 400 },
    );
  });

  it('leaves the rest of the bytes unscanned only when they cannot name a member again: duplicates plain, escaped, nested or as values (fuzzed)', () => {
    const names = ['model', 'stream', 'messages'];
    const value = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('model', { model: 'x' }, ['model', { stream: 1 }], 'mod\u0065l'));
    const entry = fc.tuple(fc.constantFrom(...names, 'n'), value, fc.boolean());
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 6 }), fc.subarray(['model', 'stream'], { minLength: 1 }), (entries, set) => {
        const text = `{${entries.map(([k, v, escaped]) => `${escaped ? escapedKey(k) : JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
        const parsed = JSON.parse(text) as Json;
        const members: Json = Object.fromEntries(set.map((name) => [name, `${name}-set`]));
        const out = splice(text, members);
        // Given up (the caller serializes the object) or the bytes mean the object with the members set.
        if (out !== undefined) expect(JSON.parse(out)).toEqual(meaning(parsed, members));
        // Each member named once, plainly, first, with nothing after that could name it: spliced.
        if (entries.length === 1 && !entries[0]![2] && set.length === 1 && entries[0]![0] === set[0]) expect(out).toBeDefined();
      }),
      { numRuns: 1000 },
    );
    // The common body: the model first, a conversation after it that mentions "model" in its text.
    const body = '{"model":"fast","messages":[{"role":"user","content":"which \\"model\\" is this?"}],"metadata":{"note":"model"}}';
    expect(splice(body, { model: 'gpt-4o-mini' })).toBe(body.replace('"fast"', '"gpt-4o-mini"'));
  });
});
