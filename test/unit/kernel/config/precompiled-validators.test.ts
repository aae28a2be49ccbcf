import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readFileSync, readdirSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { buildGateway } from '../../../helpers/built-gateway.js';
import { EXTENSION_AJV_OPTIONS, PRECOMPILED_FILE } from '../../../../src/kernel/config/ajv-options.js';
import { schemaAjv, schemaDocument } from '../../../../src/kernel/config/schema-validator.js';
import { loadPrecompiled } from '../../../../src/kernel/config/precompiled-validators.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** The build's precompiled validators (what `npm run build` writes beside dist/main.js). */
function built(): { schemaHash: string; schemas: Record<string, ValidateFunction>; extensions: Record<string, ValidateFunction> } {
  const main = buildGateway();
  return createRequire(import.meta.url)(join(main, '..', PRECOMPILED_FILE));
}

const configs: unknown[] = [
  { server: { port: 8787, workers: 'auto' }, logging: { level: 'info' } },
  { server: { port: '8787' } },
  { server: { port: 0, workers: 0 }, storage: { type: 'nosql' } },
  { providers: { openai: { baseUrl: 'not a url' } }, auth: { enabled: true, type: 'jwt' } },
  { rateLimits: [{ per: 'ip', limit: -1, window: '1 minute' }], unknownKey: true },
  { routing: { circuitBreaker: { failureThreshold: 2 } }, batches: { claimTimeout: '5s', concurrency: 1000 } },
  { mcpServers: { bad__name: { url: 'http://x' }, good: { command: 'node', timeout: 'soon' } } },
  'just text',
];

const requests: Array<[string, unknown]> = [
  ['requests/chat-completions.schema.json', { model: 'm', messages: [{ role: 'user', content: 'hi' }] }],
  ['requests/chat-completions.schema.json', { model: 'm', messages: [{ role: 'wizard', content: 3 }], temperature: '0.5' }],
  ['requests/chat-completions.schema.json', { messages: 'hello', n: 0, stream: 'yes' }],
  ['requests/embeddings.schema.json', { model: 'e', input: [1, 'a', null] }],
];

describe('validators compiled by the build', () => {
  it('answer exactly as validators compiled at run time: the same verdict and the same errors', () => {
    const ahead = built();
    const gatewayId = schemaDocument('gateway.schema.json').$id as string;
    const runtime = schemaAjv().getSchema(gatewayId)!;
    for (const config of configs) {
      const a = ahead.schemas[gatewayId]!;
      expect(a(structuredClone(config))).toBe(runtime(structuredClone(config)));
      expect(a.errors ?? null).toEqual(runtime.errors ?? null);
    }
    for (const [file, body] of requests) {
      const id = schemaDocument(file).$id as string;
      const a = ahead.schemas[id]!;
      const r = schemaAjv().getSchema(id)!;
      expect(a(body)).toBe(r(body));
      expect(a.errors ?? null).toEqual(r.errors ?? null);
    }
  });

  it('fill in the defaults of extension configs as a run-time compile does', () => {
    const ahead = built();
    const dir = join(process.cwd(), 'schema', 'stages');
    const samples = [{}, { attempts: 'three' }, { limit: 5, unknown: 1 }, { on: [500], attempts: 2 }];
    for (const name of readdirSync(dir)) {
      const schema = JSON.parse(readFileSync(join(dir, name), 'utf8'));
      const runtime = addFormats(new Ajv({ ...EXTENSION_AJV_OPTIONS })).compile(schema);
      const a = ahead.extensions[schema.$id]!;
      expect(a, name).toBeTypeOf('function');
      for (const sample of samples) {
        const x = structuredClone(sample);
        const y = structuredClone(sample);
        expect(a(x)).toBe(runtime(y));
        expect(x).toEqual(y);
        expect(a.errors ?? null).toEqual(runtime.errors ?? null);
      }
    }
  });

  it('are used by the built gateway only while schema/ holds the texts they were made from', async () => {
    const ahead = built();
    const builtModule = join(buildGateway(), '..', 'kernel', 'config', 'precompiled-validators.js');
    const { loadPrecompiled: loadBuilt } = (await import(pathToFileURL(builtModule).href)) as { loadPrecompiled: typeof loadPrecompiled };
    expect(loadBuilt(ahead.schemaHash)?.schemas).toBe(ahead.schemas);
    expect(loadBuilt('a hash of other schema texts')).toBeUndefined();
    // The built gateway's validators carry their schema, as run-time compiled ones do (multipart forms read it).
    const builtValidator = join(buildGateway(), '..', 'kernel', 'config', 'schema-validator.js');
    const { validatorFor: builtFor } = (await import(pathToFileURL(builtValidator).href)) as { validatorFor: (file: string) => ValidateFunction };
    const forFiles = builtFor('requests/files-upload.schema.json');
    expect(forFiles).toBe(ahead.schemas[schemaDocument('requests/files-upload.schema.json').$id as string]);
    expect(forFiles.schema).toEqual(schemaDocument('requests/files-upload.schema.json'));
    // Running from the sources (no build beside them), validators are compiled at run time.
    expect(loadPrecompiled(ahead.schemaHash)).toBeUndefined();
  });
});
