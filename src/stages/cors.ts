import type { CorsStageConfig } from '../generated/stages/cors.js';
import { schemaDocument } from '../kernel/config/schema-validator.js';
import { headerValue, RESPONSE } from '../kernel/engine/context.js';
import { defineStage } from '../kernel/engine/stage.js';
import { forbidden } from '../contract/errors/gateway-error.js';
import { registeredFeatures } from '../kernel/config/features.js';
import { originAllowed } from '../features/mcp/index.js';

const DONE: Promise<void> = Promise.resolve();

/**
 * The Origin rule (DNS-rebinding protection) and CORS: a request whose Origin header is present
 * and not allowed (server.allowedOrigins, the gateway's own origin, any loopback origin when it
 * listens on loopback only; see originAllowed) is refused with 403; an allowed origin gets
 * Access-Control-Allow-Origin and the exposed headers on every answer, errors included; an
 * OPTIONS preflight is answered here with 204, allowing the configured headers and those the
 * features' credentials come in (kernel/config/features.ts: corsHeaders).
 */
export default defineStage<CorsStageConfig>({
  name: 'cors',
  description: 'Checks the Origin header (403 for a foreign origin), adds CORS headers and answers preflights.',
  schema: schemaDocument('stages/cors.schema.json'),
  once: true,
  writes: [RESPONSE],
  create(config, services) {
    const allowedOrigins = services.config.server?.allowedOrigins;
    const listenHost = services.config.server?.host;
    const publicUrl = services.config.server?.publicUrl;
    // The headers the features' credentials come in (auth's api-key header) are allowed too.
    const credentialHeaders = registeredFeatures().flatMap((f) => f.corsHeaders?.(services.config) ?? []);
    const exposed = (config.exposeHeaders ?? []).join(', ');
    const methods = (config.methods ?? []).join(', ');
    const allowHeaders = [...(config.allowHeaders ?? []), ...credentialHeaders].join(', ');
    const maxAge = String(config.maxAge ?? 600);
    // No promise of its own: next() is its answer, a refusal is thrown (the chain answers it like a rejection).
    return (ctx, next) => {
      const origin = headerValue(ctx.headers, 'origin');
      if (!originAllowed(origin, allowedOrigins, { host: headerValue(ctx.headers, 'host'), listenHost, publicUrl }))
        throw forbidden(`Origin ${origin} is not allowed (server.allowedOrigins).`);
      if (origin !== undefined) {
        ctx.responseHeaders['access-control-allow-origin'] = origin;
        if (exposed) ctx.responseHeaders['access-control-expose-headers'] = exposed;
        ctx.responseHeaders.vary = 'Origin';
      }
      if (ctx.method === 'OPTIONS') {
        ctx.responseHeaders['access-control-allow-methods'] = methods;
        ctx.responseHeaders['access-control-allow-headers'] = allowHeaders;
        ctx.responseHeaders['access-control-max-age'] = maxAge;
        ctx.response = { kind: 'empty', status: 204 };
        return DONE;
      }
      return next();
    };
  },
});
