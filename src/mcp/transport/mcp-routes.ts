import type { Express, Request, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import type { GatewayServices } from '../../engine/services.js';
import { headerValue } from '../../engine/context.js';
import { readRequestBytes } from '../../engine/request-body.js';
import { badRequest, forbidden, GatewayError, notFound } from '../../errors/gateway-error.js';
import { normalizeError } from '../../errors/normalize.js';
import { sendError } from '../../http/express-errors.js';
import type { McpAuthenticator } from '../../auth/mcp-authenticator.js';
import type { Aggregator } from '../aggregator.js';
import { authorize, mayUseEndpoint } from '../authorization.js';
import type { AuditLog } from '../audit.js';
import type { LegacySessions } from './legacy-sessions.js';
import { isModernRequest, type ModernEndpoint } from './modern-http.js';
import { originAllowed } from './origin.js';

export interface McpEndpointParts {
  authenticator: McpAuthenticator;
  aggregator: Aggregator;
  legacy: LegacySessions;
  modern: ModernEndpoint;
  audit: AuditLog;
}

const EXPOSED = 'Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate';

async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const raw = await readRequestBytes(req, limit);
  if (raw.length === 0) throw badRequest('The request body is empty; a JSON-RPC message is required.', 'body');
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw badRequest(`The request body is not valid JSON: ${(err as Error).message}`, 'body');
  }
}

/**
 * /mcp (every tool server the caller may use, names `server__name`) and /mcp/<server> (one
 * server, its own names). Each request: Origin checked (403), the caller authenticated again
 * (401), allowed at all (403: no scope, or a server it may not use), then served by the modern
 * (2026-07-28, stateless) or the handshake-era (sessions through the SDK) transport.
 */
export function mountMcpRoutes(app: Express, services: GatewayServices, parts: McpEndpointParts): void {
  const { config, logger, metrics } = services;
  const allowedOrigins = config.server?.allowedOrigins;
  const bodyLimit = config.server?.bodyLimit ?? 10 * 1024 * 1024;
  const logRequests = config.logging?.requests !== false;
  const authHeader = config.auth?.type === 'api-key' ? (config.auth.header ?? 'X-API-Key') : undefined;

  const handle = async (req: Request, res: Response, pinned: string | undefined) => {
    const started = performance.now();
    let identityLabel: string | undefined;
    res.once('close', () => {
      metrics.recordRequest('mcp', 'none', res.statusCode, (performance.now() - started) / 1000);
      if (logRequests) {
        logger.info(
          { method: req.method, route: pinned ? `/mcp/${pinned}` : '/mcp', status: res.statusCode, ms: Math.round((performance.now() - started) * 100) / 100, ...(identityLabel ? { user: identityLabel } : {}) },
          'request',
        );
      }
    });
    try {
      const origin = headerValue(req.headers, 'origin');
      if (!originAllowed(origin, allowedOrigins)) throw forbidden(`Origin ${origin} is not allowed (server.allowedOrigins).`);
      if (origin !== undefined) {
        res.setHeader('Access-Control-Allow-Origin', origin);
        res.setHeader('Access-Control-Expose-Headers', EXPOSED);
        res.setHeader('Vary', 'Origin');
      }
      if (req.method === 'OPTIONS') {
        res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
        res.setHeader(
          'Access-Control-Allow-Headers',
          ['Authorization', 'Content-Type', 'Accept', 'Mcp-Session-Id', 'MCP-Protocol-Version', 'Mcp-Method', 'Mcp-Name', 'Last-Event-ID', ...(authHeader ? [authHeader] : [])].join(', '),
        );
        res.setHeader('Access-Control-Max-Age', '600');
        res.status(204).end();
        return;
      }
      if (req.method !== 'GET' && req.method !== 'POST' && req.method !== 'DELETE') throw badRequest(`/mcp takes POST, GET and DELETE, not ${req.method}.`);
      const resourcePath = pinned ? `/mcp/${pinned}` : '/mcp';
      const identity = await parts.authenticator.authenticate(req, resourcePath);
      identityLabel = identity.kind === 'anonymous' ? undefined : (identity.user ?? identity.id);
      if (!mayUseEndpoint(identity)) {
        parts.audit.record(identity, { method: req.method, server: pinned, allowed: false, reason: 'the credential has neither mcp:read nor mcp:write', outcome: 'denied', ms: 0 });
        throw forbidden('The credential has neither the mcp:read nor the mcp:write scope.');
      }
      if (pinned) {
        if (!parts.aggregator.pool.get(pinned)) throw notFound(`No tool server named ${pinned}.`);
        const decision = authorize(identity, { action: 'list', server: pinned });
        if (!decision.allowed) {
          parts.audit.record(identity, { method: req.method, server: pinned, allowed: false, reason: decision.reason, outcome: 'denied', ms: performance.now() - started });
          throw forbidden(`Forbidden: ${decision.reason}.`);
        }
      }
      const body = req.method === 'POST' ? await readJsonBody(req, bodyLimit) : undefined;
      if (isModernRequest(req)) await parts.modern.handle(req, res, identity, pinned, body);
      else await parts.legacy.handle(req, res, identity, pinned, body);
    } catch (err) {
      const error = err instanceof GatewayError ? err : normalizeError(err);
      if (error.code === 'internal_error') logger.error({ err: (err as Error)?.message, stack: (err as Error)?.stack }, 'mcp endpoint error');
      sendError(res, error);
    }
  };

  app.all('/mcp', (req, res) => handle(req, res, undefined));
  app.all('/mcp/:server', (req, res) => handle(req, res, String(req.params.server)));
}
