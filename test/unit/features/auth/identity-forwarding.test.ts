import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Identity } from '../../../../src/kernel/engine/context.js';
import { dropForgedIdentityHeaders, forwardedIdentity, identityHeaders, identitySignature } from '../../../../src/features/auth/identity-forwarding.js';

const token = (over: Partial<Identity> = {}): Identity => ({ kind: 'token', id: 'tok_1', user: 'alice', ...over });

describe('identity forwarding rules (contract section 6)', () => {
  it('X-User-Name is the name, else the user; X-User-Email the email, else the user when it is an email', () => {
    expect(identityHeaders(token({ name: 'Alice A.' }))).toEqual({ 'X-User-Name': 'Alice A.' });
    expect(identityHeaders(token())).toEqual({ 'X-User-Name': 'alice' });
    expect(identityHeaders(token({ user: 'alice@example.com' }))).toEqual({ 'X-User-Name': 'alice@example.com', 'X-User-Email': 'alice@example.com' });
    expect(identityHeaders(token({ user: 'alice@example.com', email: 'a@corp.example' }))['X-User-Email']).toBe('a@corp.example');
  });

  it('roles are comma-separated; team and organization as given; empty values are not sent', () => {
    const h = identityHeaders({ kind: 'api-key', id: 'k', user: 'bot', team: 'red', roles: ['a', ' b ', ''], organization: 'acme', email: '' });
    expect(h).toEqual({ 'X-User-Name': 'bot', 'X-User-Team': 'red', 'X-User-Roles': 'a,b', 'X-Organization-Id': 'acme' });
  });

  it('a missing organization falls back to identityForwarding.organizationId, for every kind of identity', () => {
    for (const kind of ['token', 'api-key', 'oauth', 'mtls'] as const) {
      expect(identityHeaders({ kind, id: 'x', name: 'n' }, { organizationId: 'org-1' })['X-Organization-Id']).toBe('org-1');
    }
    expect(identityHeaders(token({ organization: 'own' }), { organizationId: 'org-1' })['X-Organization-Id']).toBe('own');
  });

  it('a value no header can carry (beyond Latin-1) is neither sent nor signed; Latin-1 values are', () => {
    const h = identityHeaders(token({ name: '李雷', team: 'Équipe' }), { signingSecret: 'a-signing-secret-of-16+' }, 1700000000);
    expect(h['X-User-Name']).toBeUndefined();
    expect(h['X-User-Team']).toBe('Équipe');
    const expected = createHmac('sha256', 'a-signing-secret-of-16+').update('1700000000...Équipe..').digest('hex');
    expect(h['X-Gateway-Identity-Signature']).toBe(`t=1700000000,v1=${expected}`);
  });

  it('OAuth and certificate identities do not fall back to the user for name or email', () => {
    expect(identityHeaders({ kind: 'oauth', id: 'iss#sub', user: 'sub-123@x.example' })).toEqual({});
  });

  it('identityForwarding.headers limits what is sent; enabled: false sends nothing', () => {
    const id = token({ user: 'a@b.example', team: 't', roles: ['r'], organization: 'o' });
    expect(Object.keys(identityHeaders(id, { headers: ['email', 'organization'] })).sort()).toEqual(['X-Organization-Id', 'X-User-Email']);
    expect(identityHeaders(id, { enabled: false })).toEqual({});
    expect(forwardedIdentity(id, { enabled: false })).toEqual({});
  });

  it('anonymous callers (auth disabled) forward nothing', () => {
    expect(identityHeaders({ kind: 'anonymous', id: 'anonymous' }, { organizationId: 'o', signingSecret: 's'.repeat(16) })).toEqual({});
  });

  it('a value that could split a header line is never sent', () => {
    expect(identityHeaders(token({ name: 'evil\r\nX-Admin: 1' }))).toEqual({ 'X-User-Name': 'alice' });
  });

  it('signs t.email.name.team.roles.org with HMAC-SHA256, missing fields as empty strings', () => {
    const secret = 'signing-secret-0123456789';
    const h = identityHeaders(token({ name: 'Al', team: 'x' }), { signingSecret: secret }, 1700000000);
    const expected = createHmac('sha256', secret).update('1700000000..Al.x..').digest('hex');
    expect(h['X-Gateway-Identity-Signature']).toBe(`t=1700000000,v1=${expected}`);
    expect(identitySignature({ email: 'e', name: 'n', team: 't', roles: 'r1,r2', organization: 'o' }, secret, 5)).toBe(
      `t=5,v1=${createHmac('sha256', secret).update('5.e.n.t.r1,r2.o').digest('hex')}`,
    );
  });

  it('drops every identity header a caller sent', () => {
    const headers: Record<string, string> = {
      'x-user-email': 'a',
      'x-user-name': 'b',
      'x-user-team': 'c',
      'x-user-roles': 'd',
      'x-organization-id': 'e',
      'x-gateway-identity-signature': 'f',
      'x-other': 'kept',
    };
    dropForgedIdentityHeaders(headers);
    expect(headers).toEqual({ 'x-other': 'kept' });
  });
});
