// "Keys on" for bench scenarios (issue 22/23): the gateway config of a model catalogue served with
// a credential the gateway holds, a gateway key with a money budget minted through the admin API,
// and the usage ledger (a row per answer in the gateway's store, as for every keyed request).
import { request } from 'undici';

export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdefghijklmnopqrstuvwxyz';
/** The catalogue model the keyed requests name. */
export const CATALOGUE_MODEL = 'fast';

/** Config: admin token, the held credential, the catalogue model (priced, so budgets count money) and a team budget. */
export function keysConfig(providerBaseUrl) {
  return {
    auth: { adminToken: ADMIN_TOKEN },
    providers: { openai: { baseUrl: providerBaseUrl } },
    credentials: { 'openai-main': { provider: 'openai', api_key: 'sk-bench-held-0123456789abcdefghijklmnop' } },
    models: {
      [CATALOGUE_MODEL]: { credential: 'openai-main', model: 'gpt-4o-mini', price: { input: '0.00000015', output: '0.0000006' } },
    },
    tenants: { organizations: { bench: { name: 'Bench' } }, teams: { load: { organization: 'bench', models: [CATALOGUE_MODEL] } } },
    budgets: { team: { load: { limit_usd: 1_000_000_000, window: { period: 'month' } } } },
  };
}

/** Mints a gateway key (team load, the catalogue model, a monthly money budget of its own) and sets it on `headers`. */
export async function mintKey(gatewayUrl, headers) {
  const res = await request(`${gatewayUrl}/v1/auth/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ user: 'bench@example.com', team: 'load', models: [CATALOGUE_MODEL], budgets: [{ limit_usd: 1_000_000_000, window: { period: 'month' } }] }),
  });
  const body = await res.body.json();
  if (res.statusCode !== 201) throw new Error(`minting a bench gateway key: ${res.statusCode} ${JSON.stringify(body)}`);
  headers.authorization = `Bearer ${body.token}`;
}
