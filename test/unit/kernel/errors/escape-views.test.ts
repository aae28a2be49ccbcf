import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, View, forEachView, jsonDecoded, urlDecoded } from '../../../../src/kernel/errors/escape-views.js';

const root = (text: string): View => new View(text);

/** The original characters a view's span [i, j) came from. */
const origin = (text: string, view: View, i: number, j: number) => text.slice(view.origin(i), view.origin(j));

describe('escape views', () => {
  it('decodes one layer of JSON escapes, \\u escapes in either hex case and surrogate pairs, knowing where each character came from', () => {
    const text = String.raw`a\"b\\c\/d\n\u0041\u00E9\ud83d\ude00z`;
    const view = jsonDecoded(root(text))!;
    expect(view.text).toBe('a"b\\c/d\nAé😀z');
    expect(origin(text, view, 1, 2)).toBe('\\"');
    expect(origin(text, view, 8, 9)).toBe('\\u0041');
    expect(origin(text, view, 10, 12)).toBe(String.raw`\ud83d\ude00`);
    expect(origin(text, view, 0, view.text.length)).toBe(text);
  });

  it('keeps what is not an escape, and answers undefined when nothing was decoded', () => {
    expect(jsonDecoded(root('no escapes'))).toBeUndefined();
    expect(jsonDecoded(root(String.raw`C:\qx \u12`))).toBeUndefined();
    expect(jsonDecoded(root(String.raw`C:\q \u0041`))!.text).toBe(String.raw`C:\q A`);
  });

  it('decodes URL encoding as UTF-8 (either hex case), + as a space only when asked, invalid sequences kept', () => {
    const text = 'k=%C3%a9t%C3 a+b%2B%F0%9F%98%80%zz';
    const view = urlDecoded(root(text), true)!;
    expect(view.text).toBe('k=ét%C3 a b+😀%zz');
    expect(origin(text, view, 2, 3)).toBe('%C3%a9');
    expect(origin(text, view, 12, 14)).toBe('%F0%9F%98%80');
    expect(urlDecoded(root('a+b'), false)).toBeUndefined();
  });

  it('composes: a view of a view points into the original text', () => {
    const text = JSON.stringify(JSON.stringify({ k: 'x"y' }));
    const once = jsonDecoded(root(text))!;
    const twice = jsonDecoded(once)!;
    expect(twice.text).toBe('"{"k":"x"y"}"');
    expect(origin(text, twice, 7, 10)).toBe(String.raw`x\\\"y`);
  });

  it('visits every JSON depth up to the bound, and URL encoding at any point of the chain', () => {
    let text = 'secret "x" \\ é';
    const seen: string[] = [];
    for (let i = 0; i < MAX_JSON_DEPTH + 2; i++) text = JSON.stringify(text);
    forEachView(text, false, (v) => seen.push(v.text));
    expect(seen.length).toBe(MAX_JSON_DEPTH + 1);
    const inUrl = JSON.stringify(JSON.stringify(`u=${encodeURIComponent(JSON.stringify('a"b'))}`));
    const views: string[] = [];
    forEachView(inUrl, false, (v) => views.push(v.text));
    expect(views).toContain('""u="a"b"""');
  });
});
