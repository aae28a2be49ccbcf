// An example auth mode written with the public plugin API: `shared-secret` lets in callers that
// send one shared secret in a header. The tool-server endpoint (/mcp) uses it when its pipeline
// says so, in a pipeline file of your own (pipelines.dir), e.g. mcp.yaml:
//   name: mcp
//   extends: mcp
//   configure:
//     authenticate: { credential: gateway, mode: shared-secret, options: { secret: a-long-team-secret-0001 } }
// The options are checked against `schema` at start-up. A refusal is the contract's 401.
import { timingSafeEqual } from 'node:crypto';
import { defineAuthMode } from 'pipeline-gateway/plugin';

export default defineAuthMode({
  name: 'shared-secret',
  description: 'Callers that send the shared secret in a header.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['secret'],
    properties: {
      secret: { description: 'The secret callers send.', type: 'string', minLength: 16 },
      // Not `header`: an auth mode's settings also take the keys of the same name in the config's
      // auth section (auth.header is the api-key mode's).
      secretHeader: { description: 'The header that carries it.', type: 'string', pattern: '^[A-Za-z0-9-]+$', default: 'x-shared-secret' },
    },
  },
  create(settings) {
    const header = settings.secretHeader.toLowerCase();
    const expected = Buffer.from(settings.secret);
    return {
      async authenticate(ctx) {
        const raw = ctx.headers[header];
        const sent = Array.isArray(raw) ? raw[0] : raw;
        if (!sent) ctx.reject(401, { message: `Send the shared secret in the ${settings.secretHeader} header.` });
        // Kept out of every error and log line of this request.
        ctx.secrets.push(sent);
        const given = Buffer.from(sent);
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) ctx.reject(401, { message: 'The shared secret does not match.' });
        return { kind: 'shared-secret', id: 'shared-secret', scopes: ['mcp:read', 'mcp:write'] };
      },
    };
  },
});
