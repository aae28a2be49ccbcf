import { describe, expect, it } from 'vitest';
import { gatewayUri, prefixedName, splitName, splitUri } from '../../../../src/features/mcp/naming.js';

describe('aggregated names and URIs', () => {
  it('server__name splits at the first separator (server names never contain __)', () => {
    expect(prefixedName('github', 'list_issues')).toBe('github__list_issues');
    expect(splitName('github__list__issues')).toEqual({ server: 'github', name: 'list__issues' });
    expect(splitName('noseparator')).toBeUndefined();
    expect(splitName('__x')).toBeUndefined();
    expect(splitName('x__')).toBeUndefined();
  });

  it('resource URIs map reversibly, templates stay templates', () => {
    for (const uri of ['file:///etc/hosts', 'demo://resource/static/1', 'https://example.com/a?b=c#d', 'note://items/{id}']) {
      const mapped = gatewayUri('srv', uri);
      expect(mapped).toBe(`mcpgw://srv/${uri}`);
      expect(splitUri(mapped)).toEqual({ server: 'srv', uri });
    }
    expect(splitUri('file:///x')).toBeUndefined();
    expect(splitUri('mcpgw://srv/')).toBeUndefined();
    expect(splitUri('mcpgw:///x')).toBeUndefined();
  });
});
