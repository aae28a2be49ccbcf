import { describe, expect, it } from 'vitest';
import { Router } from '../../../../src/kernel/http/router.js';
import { compareSpecificity, parsePattern, patternMatches, type RoutePattern } from '../../../../src/kernel/engine/route-patterns.js';
import { ROUTES } from '../../../../src/contract/routes.js';

describe('the route table lookup', () => {
  const router = new Router(ROUTES);
  const key = (method: string, path: string) => router.match(method, path)?.route.key;

  it('finds routes with and without parameters, with the parameters decoded', () => {
    expect(key('POST', '/v1/chat/completions')).toBe('POST /v1/chat/completions');
    expect(router.match('GET', '/v1/files/file%2D1/content')).toEqual({
      route: expect.objectContaining({ key: 'GET /v1/files/{file_id}/content' }),
      params: { file_id: 'file-1' },
    });
    expect(router.match('POST', '/mcp/local')?.params).toEqual({ server: 'local' });
    expect(key('OPTIONS', '/mcp')).toBe('OPTIONS /mcp');
  });

  it('names a parameter whose percent-encoding is malformed (the edge answers 400) and passes nothing on as it came', () => {
    expect(router.match('GET', '/v1/files/%zz')).toEqual({ route: expect.objectContaining({ key: 'GET /v1/files/{file_id}' }), params: { file_id: '%zz' }, malformed: 'file_id' });
    expect(router.match('DELETE', '/v1/auth/tokens/%E0%A4%A')?.malformed).toBe('id');
    expect(router.match('GET', '/v1/files/a%25b')).toEqual({ route: expect.objectContaining({ key: 'GET /v1/files/{file_id}' }), params: { file_id: 'a%b' } });
  });

  it('ignores case and one trailing slash; HEAD is served by GET', () => {
    expect(key('POST', '/V1/Chat/Completions/')).toBe('POST /v1/chat/completions');
    expect(key('HEAD', '/health')).toBe('GET /health');
  });

  it('gives nothing for unknown routes (the catch-all serves them)', () => {
    expect(key('GET', '/v1/chat/completions')).toBeUndefined();
    expect(key('PUT', '/v1/files/x')).toBeUndefined();
    expect(key('GET', '/v1/files//content')).toBeUndefined();
    expect(key('GET', '/')).toBeUndefined();
  });
});

describe('route patterns', () => {
  const p = (text: string) => parsePattern(text) as RoutePattern;
  const route = (k: string) => ROUTES.find((r) => r.key === k)!;

  it('match the route table entries they claim', () => {
    expect(patternMatches(p('* /v1/*'), route('GET /v1/files/{file_id}/content'))).toBe(true);
    expect(patternMatches(p('* /v1/files'), route('GET /v1/files/{file_id}'))).toBe(false);
    expect(patternMatches(p('GET /v1/files/{x}'), route('GET /v1/files/{file_id}'))).toBe(true);
    expect(patternMatches(p('POST /v1/files/{x}'), route('GET /v1/files/{file_id}'))).toBe(false);
    expect(patternMatches(p('*'), route('*'))).toBe(true);
    expect(patternMatches(p('* /*'), route('*'))).toBe(true);
    expect(patternMatches(p('GET /*'), route('*'))).toBe(false);
  });

  it('order by specificity: literal, then {param}, then *, from the left; then a named method', () => {
    expect(compareSpecificity(p('GET /v1/files/{id}'), p('GET /v1/*'))).toBeGreaterThan(0);
    expect(compareSpecificity(p('* /v1/files/{id}'), p('GET /v1/files/{id}'))).toBeLessThan(0);
    expect(compareSpecificity(p('GET /v1/files/{a}'), p('GET /v1/files/{b}'))).toBe(0);
    expect(compareSpecificity(p('*'), p('* /v1/*'))).toBeLessThan(0);
  });

  it('refuse malformed patterns', () => {
    expect(parsePattern('GET v1')).toBe('must be "METHOD /path" or "*"');
    expect(parsePattern('FETCH /v1')).toBe('unknown method FETCH');
    expect(parsePattern('GET /v1/*/x')).toBe('"*" may only end a path');
    expect(parsePattern('GET /v1/{a-b}')).toBe('segment "{a-b}" must be a name, {param} or *');
  });
});
