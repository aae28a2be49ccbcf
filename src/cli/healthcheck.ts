/**
 * The container's health probe: `node dist/cli/healthcheck.js [--config <path>]` reads the
 * effective config (the file of --config or GATEWAY_CONFIG, ${ENV} expanded, GATEWAY_PORT applied)
 * and asks GET /health on its port, over HTTPS when server.ssl is on. Exit 0 on 200, else 1.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { configPathFrom, loadConfigFile } from '../config.js';
import type { GatewayConfig } from '../generated/gateway.js';

/** The /health address of a config: a wildcard host is probed on loopback. */
export function healthUrl(config: GatewayConfig): string {
  const host = config.server?.host ?? '0.0.0.0';
  const local = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  const scheme = config.server?.ssl?.enabled ? 'https' : 'http';
  return `${scheme}://${local}:${config.server?.port ?? 8787}/health`;
}

/** Resolves true when `url` answers 200 within `timeoutMs` (a self-signed certificate is accepted: this is the gateway's own port). */
export function probe(url: string, timeoutMs = 2500): Promise<boolean> {
  return new Promise((resolve) => {
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = send(url, { method: 'GET', timeout: timeoutMs, rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(false));
    req.end();
  });
}

async function main(): Promise<void> {
  let url: string;
  try {
    url = healthUrl(loadConfigFile(configPathFrom(process.argv.slice(2), process.env)));
  } catch (err) {
    process.stderr.write(`healthcheck: ${(err as Error).message.split('\n')[0]}\n`);
    process.exit(1);
  }
  const ok = await probe(url);
  if (!ok) process.stderr.write(`healthcheck: ${url} did not answer 200\n`);
  process.exit(ok ? 0 : 1);
}

void main();
