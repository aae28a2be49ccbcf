import { expect } from 'vitest';

/** A gateway key issued through the token operations (POST /v1/auth/tokens, 201): the answer, its value in `token`. */
export async function issueKey(gatewayUrl: string, adminToken: string, body: Record<string, unknown>): Promise<{ id: string; token: string; [field: string]: unknown }> {
  const res = await fetch(`${gatewayUrl}/v1/auth/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; token: string };
}
