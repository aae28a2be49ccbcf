import { describe, expect, it } from 'vitest';
import {
  REDACTED,
  SecretMatcher,
  answerBytesRedactor,
  declareSecretFields,
  isSecretField,
  maskable,
  redactAnswer,
  redactAnswerBytes,
  redactingStream,
  redactLogLine,
  redactObject,
  redactRelayed,
  redactRepeatedLogTextOf,
  redactSecrets,
  registerSecrets,
} from '../../../../src/kernel/errors/redact.js';
import fc from 'fast-check';
import { configSecrets } from '../../../../src/config.js';

describe('redactSecrets', () => {
  it('masks every occurrence of a known secret, whatever its shape', () => {
    expect(redactSecrets('key plainsecretvalue4242 and again plainsecretvalue4242.', ['plainsecretvalue4242'])).toBe(`key ${REDACTED} and again ${REDACTED}.`);
  });

  it('masks bearer values and well-known key shapes it was not told about', () => {
    expect(redactSecrets('Authorization: Bearer abcdefgh12345678', [])).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redactSecrets('Incorrect API key provided: sk-proj-abcdefgh12345678.', [])).toBe(`Incorrect API key provided: ${REDACTED}.`);
    expect(redactSecrets('gsk_x and gsk-abcdefgh1234', [])).toBe(`gsk_x and ${REDACTED}`);
  });

  it('leaves ordinary text and too-short "secrets" alone', () => {
    expect(redactSecrets('The model `gpt-4o` does not exist.', ['abc', undefined, ''])).toBe('The model `gpt-4o` does not exist.');
  });
});

describe('redactObject', () => {
  it('masks fields whose names say they hold a secret, at any depth', () => {
    const out = redactObject({
      headers: { authorization: 'Bearer x', 'x-gateway-api-key': 'k', 'content-type': 'application/json' },
      target: { provider: 'openai', api_key: 'k2', aws_secret_access_key: 's', aws_session_token: 't', password: 'p' },
      list: [{ token: 'abc' }],
    });
    expect(out).toEqual({
      headers: { authorization: REDACTED, 'x-gateway-api-key': REDACTED, 'content-type': 'application/json' },
      target: { provider: 'openai', api_key: REDACTED, aws_secret_access_key: REDACTED, aws_session_token: REDACTED, password: REDACTED },
      list: [{ token: REDACTED }],
    });
  });

  it('masks known secret values inside any string', () => {
    expect(redactObject({ upstream_body: '{"error":"bad key plainsecretvalue4242"}', n: 3 }, ['plainsecretvalue4242'])).toEqual({
      upstream_body: `{"error":"bad key ${REDACTED}"}`,
      n: 3,
    });
  });

  it('knows the secret field names', () => {
    for (const name of ['Authorization', 'x-api-key', 'apiKey', 'client_secret', 'refresh_token', 'private_key', 'cookie']) {
      expect(isSecretField(name)).toBe(true);
    }
    for (const name of ['model', 'provider', 'max_tokens', 'tokens', 'prompt_tokens_details']) expect(isSecretField(name)).toBe(false);
  });

  it('masks the fields an extension declares secret (the kernel names no provider field)', () => {
    expect(isSecretField('acme_signing_blob')).toBe(false);
    declareSecretFields(['acme_signing_blob']);
    expect(isSecretField('acme_signing_blob')).toBe(true);
    expect(isSecretField('ACME_Signing_Blob')).toBe(true);
    expect(redactObject({ target: { acme_signing_blob: 'abcd-1234', model: 'm' } }, [])).toEqual({ target: { acme_signing_blob: REDACTED, model: 'm' } });
    expect(configSecrets({ configs: { c: { targets: [{ acme_signing_blob: '{"private_key":"pk-declared-1"}' }] } } })).toContain('pk-declared-1');
  });
});

describe('the one redactor', () => {
  it('masks a secret in each spelling: raw, JSON-escaped (once and twice, \\u escapes), URL-encoded', () => {
    const secret = 'sé"cr\\et/42 x';
    const json = JSON.stringify(secret).slice(1, -1);
    const texts = [
      `raw ${secret} end`,
      `json {"m":"${json}"}`,
      `double ${JSON.stringify(JSON.stringify({ m: secret }))}`,
      `ascii ${json.replace('é', '\\u00e9')}`,
      `url ?k=${encodeURIComponent(secret)}`,
      `form ?k=${encodeURIComponent(secret).replace(/%20/g, '+')}`,
    ];
    for (const text of texts) expect(redactAnswer(text, [secret]), text).not.toMatch(/cr|%22|\\\\et/);
  });

  it('a value given as an Authorization header also stands for its bare credential (and Basic for user:password)', () => {
    expect(redactAnswer('token abcd1234efgh seen', ['Bearer abcd1234efgh'])).toBe(`token ${REDACTED} seen`);
    const basic = `Basic ${Buffer.from('alice:pa55word').toString('base64')}`;
    expect(redactAnswer('password pa55word and alice:pa55word', [basic])).toBe(`password ${REDACTED} and ${REDACTED}`);
  });

  it('masks values of 8 characters or more, but not JSON literals, numbers or shorter values', () => {
    expect(redactAnswer('key k9#x-8ch here', ['k9#x-8ch'])).toBe(`key ${REDACTED} here`);
    expect(redactAnswer('{"ok":true,"n":12345678,"k":"k9#x"}', ['true', '12345678', 'on', 'x1', 'k9#x'])).toBe('{"ok":true,"n":12345678,"k":"k9#x"}');
  });

  it('values shorter than 8 characters are masked nowhere: answers, relayed fields, errors, debug fields, log lines', () => {
    const answer = '{"TINY":"q9","k":"k9#x","text":"q9 and k9#x in prose"}';
    expect(redactAnswer(answer, ['q9', 'k9#x', 'Bearer t3'])).toBe(answer);
    const relayed = { TINY: 'q9', NUM: '1', list: ['t3', 'ok'] };
    expect(redactRelayed(relayed, ['q9', '1', 'Bearer t3'])).toBe(relayed);
    registerSecrets(['z7', 'short7x']);
    expect(redactSecrets('upstream said {"org":"z7","k":"short7x"}')).toBe('upstream said {"org":"z7","k":"short7x"}');
    const line = JSON.stringify({ msg: 'x', header: 'z7', other: 'short7x' });
    expect(redactLogLine(line)).toBe(line);
    expect(redactAnswer('{"lang":"z7"}')).toBe('{"lang":"z7"}');
    expect(redactRelayed({ org: 'z7' })).toEqual({ org: 'z7' });
  });

  it("masks the gateway's registered secrets everywhere, and returns clean bytes untouched", () => {
    registerSecrets(['gateway-held-secret-9931']);
    expect(redactAnswer('leak gateway-held-secret-9931')).toBe(`leak ${REDACTED}`);
    const clean = Buffer.from('{"text":"nothing to hide"}');
    expect(redactAnswerBytes(clean, ['caller-key-0001'])).toBe(clean);
    expect(redactAnswerBytes(Buffer.from('{"t":"caller-key-0001"}'), ['caller-key-0001']).toString()).toBe(`{"t":"${REDACTED}"}`);
  });

  it('redacts relayed structures (keys and values) without masking fields by name', () => {
    const value = { token_count: 12, text: 'sk-relayed-0001 inside', nested: [{ 'sk-relayed-0001': 'x' }] };
    expect(redactRelayed(value, ['sk-relayed-0001'])).toEqual({ token_count: 12, text: `${REDACTED} inside`, nested: [{ [REDACTED]: 'x' }] });
    const untouched = { a: 'clean' };
    expect(redactRelayed(untouched, ['sk-relayed-0001'])).toBe(untouched);
  });

  it('a matcher compiles once and masks overlapping secrets whole (the longer first)', () => {
    const m = new SecretMatcher(['abcd1234', 'abcd1234efgh']);
    expect(m.redact('x abcd1234efgh y abcd1234')).toBe(`x ${REDACTED} y ${REDACTED}`);
    expect(m.foundIn(Buffer.from('zzabcd1234zz'))).toBe(true);
    expect(new SecretMatcher([]).empty).toBe(true);
  });

  it('masks log lines as written (JSON text)', () => {
    registerSecrets(['log-secret-"quoted"-77']);
    const line = JSON.stringify({ msg: 'x', detail: 'saw log-secret-"quoted"-77' });
    expect(redactLogLine(line)).not.toContain('quoted');
  });

  it('collects every secret of a config: credential fields, headers, env, keys, URL passwords, service accounts', () => {
    const found = configSecrets({
      auth: {
        adminToken: 'admin-xyz',
        clientSecret: 'client-xyz',
        apiKeys: [{ key: 'cfg-key-xyz', user: 'u' }],
        oauth: { signingKey: 'pem-now-xyz', previousSigningKeys: ['pem-old-xyz'] },
      },
      identityForwarding: { signingSecret: 'sign-xyz' },
      providers: { openai: { apiKey: 'prov-key', headers: { 'OpenAI-Organization': 'org-xyz' } } },
      mcpServers: { a: { command: 'x', env: { TOKEN: 'env-xyz' } }, b: { url: 'http://x', headers: { Authorization: 'Bearer hdr-xyz' } } },
      storage: { type: 'postgres', url: 'postgres://gw:pg-pass@db/x' },
      configs: { c: { targets: [{ provider: 'vertex-ai', vertex_service_account_json: { private_key: 'pk-xyz', client_email: 'e' } }] } },
      server: { ssl: { key: '/etc/tls/key.pem' } },
    });
    for (const v of ['pem-now-xyz', 'pem-old-xyz', 'admin-xyz', 'client-xyz', 'cfg-key-xyz', 'sign-xyz', 'prov-key', 'org-xyz', 'env-xyz', 'Bearer hdr-xyz', 'pg-pass', 'pk-xyz'])
      expect(found).toContain(v);
    expect(found).not.toContain('/etc/tls/key.pem');
  });
});

/** Encodings the gateway and the services around it apply to a value inside text. */
const J = (s: string) => JSON.stringify(s).slice(1, -1);
const allU = (s: string) => s.replace(/[\s\S]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const upperU = (s: string) => s.replace(/[\s\S]/g, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
const everyOtherU = (s: string) => s.replace(/[\s\S]/g, (c, i: number) => (i % 2 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : J(c)));

describe('nested spellings', () => {
  const key = 'sk-"nested\\key"/é-0042';

  it('masks a secret spelled wholly as \\uXXXX escapes (lower and upper hex), and mixed with plain characters', () => {
    for (const spelled of [allU(key), upperU(key), everyOtherU(key)]) {
      const text = `{"content":[{"type":"text","text":"${spelled}"}]}`;
      expect(redactAnswer(text, [key]), spelled).toBe(`{"content":[{"type":"text","text":"${REDACTED}"}]}`);
    }
    // JSON-escaped once more (a tool result's text holding JSON, relayed as JSON).
    expect(redactAnswer(JSON.stringify({ text: `{"t":"${allU(key)}"}` }), [key])).toBe(JSON.stringify({ text: `{"t":"${REDACTED}"}` }));
  });

  it('masks 1, 2 and 3 (and more) levels of JSON escaping of a key with " and \\', () => {
    let spelled = key;
    for (let depth = 1; depth <= 6; depth++) {
      spelled = J(spelled);
      expect(redactAnswer(`debug: ${spelled} end`, [key]), `depth ${depth}`).toBe(`debug: ${REDACTED} end`);
    }
    const body = JSON.stringify({ error: { message: JSON.stringify({ detail: JSON.stringify({ key }) }) } });
    const answer = JSON.stringify({ error: { debug: { upstream_body: body } } });
    const out = redactAnswer(answer, [key]);
    expect(out).not.toContain('nested');
    expect(JSON.parse(JSON.parse(JSON.parse(JSON.parse(out).error.debug.upstream_body).error.message).detail).key).toBe(REDACTED);
  });

  it('masks URL-encoded spellings, inside JSON and around it', () => {
    for (const spelled of [
      encodeURIComponent(key),
      encodeURIComponent(key).toLowerCase(),
      J(J(`https://h/x?k=${encodeURIComponent(key)}`)),
      encodeURIComponent(J(key)),
      new URLSearchParams({ k: 'a b ' + key }).toString(),
    ])
      expect(redactAnswer(`x ${spelled} y`, [key]), spelled).not.toMatch(/nested|%22nested/);
  });

  it("the gateway's registered secrets are masked at every depth in answers, error texts and log lines", () => {
    const held = 'held-"tool"\\token-5150';
    registerSecrets([held]);
    expect(redactAnswer(`{"t":"${allU(held)}"}`)).toBe(`{"t":"${REDACTED}"}`);
    expect(redactSecrets(`upstream: ${J(J(J(held)))}`)).toBe(`upstream: ${REDACTED}`);
    const line = JSON.stringify({ msg: 'x', body: JSON.stringify({ e: JSON.stringify({ held }) }) });
    expect(redactLogLine(line)).not.toContain('tool');
    expect(redactAnswerBytes(Buffer.from(`{"t":"${J(allU(held))}"}`)).toString()).toBe(`{"t":"${REDACTED}"}`);
  });

  it('masks what a query value of a configured URL is, however it is spelled', () => {
    const found = configSecrets({ mcpServers: { q: { url: 'https://tools.example/mcp?token=qv-Secret%2Bvalue&v=2' } } });
    expect(found).toContain('qv-Secret+value');
    registerSecrets(found);
    expect(redactAnswer('GET https://tools.example/mcp?token=qv-Secret%2Bvalue&v=2')).toBe(`GET https://tools.example/mcp?token=${REDACTED}&v=2`);
    expect(redactAnswer(J('said "qv-Secret+value"'))).toBe(J(`said "${REDACTED}"`));
  });

  it('ordinary query values of a configured URL stay readable in answers; credential-named and generated ones are secrets', () => {
    const found = configSecrets({ providers: { azure: { baseUrl: 'https://x.example/v1?api-version=2024-02-01&format=json&sv=a1B2c3D4e5F6g7H8i9' } } });
    expect(found).not.toContain('2024-02-01');
    expect(found).not.toContain('json');
    expect(found).toContain('a1B2c3D4e5F6g7H8i9');
  });

  it('a query value of a configured URL shorter than 8 characters is not masked; a longer one is, as a whole query value', () => {
    registerSecrets(configSecrets({ observability: { otlp: { endpoint: 'https://otel.example/?k=q7&token=qv-8char' } } }));
    expect(redactLogLine(JSON.stringify({ msg: 'export failed', url: 'https://otel.example/?k=q7&token=qv-8char&x=1' }))).toBe(
      JSON.stringify({ msg: 'export failed', url: `https://otel.example/?k=q7&token=${REDACTED}&x=1` }),
    );
    expect(redactLogLine(JSON.stringify({ msg: 'q7 stays in prose' }))).toBe(JSON.stringify({ msg: 'q7 stays in prose' }));
  });

  it('leaves text without a secret untouched (the same string), escapes or not', () => {
    const text = JSON.stringify({ content: 'caf\u00e9 \\ %41 "quoted" \n' });
    expect(redactAnswer(text, [key])).toBe(text);
  });
});

describe('redactingStream', () => {
  it('masks secrets however the text is cut into chunks', async () => {
    const secret = 'stream-secret-"4242"';
    const text = Buffer.from(`a ${secret} b ${JSON.stringify(secret).slice(1, -1)} c ${'é'.repeat(3)}`);
    for (const size of [1, 3, 7, 64]) {
      const out: Buffer[] = [];
      const stream = redactingStream([secret]);
      stream.on('data', (c: Buffer) => out.push(c));
      const done = new Promise((r) => stream.on('end', r));
      for (let i = 0; i < text.length; i += size) stream.write(text.subarray(i, i + size));
      stream.end();
      await done;
      expect(Buffer.concat(out).toString('utf8'), `chunks of ${size}`).toBe(`a ${REDACTED} b ${REDACTED} c ééé`);
    }
  });
});

describe('redactRepeatedLogTextOf', () => {
  it('masks a request secret in a repeating text, in any spelling, and the text without one as redactSecrets does', () => {
    const secret = 'callerkey-5521-abcdef';
    expect(redactRepeatedLogTextOf(JSON.stringify(`model-${secret}`), [secret])).toBe(`"model-${REDACTED}"`);
    // the secret \\u-escaped in JSON text is still found
    const escaped = `"m-\\u0063allerkey-5521-abcdef"`;
    expect(redactRepeatedLogTextOf(escaped, [secret])).toBe(redactSecrets(escaped, [secret]));
    expect(redactRepeatedLogTextOf(escaped, [secret])).not.toContain('allerkey-5521');
    // the same text asked again without the secret: the shapes are still masked (looked up), nothing else
    expect(redactRepeatedLogTextOf('"gpt-4o-mini"', [secret])).toBe('"gpt-4o-mini"');
    expect(redactRepeatedLogTextOf('"sk-abcdefgh12345678"', [])).toBe(`"${REDACTED}"`);
    expect(redactRepeatedLogTextOf('"sk-abcdefgh12345678"', [secret])).toBe(`"${REDACTED}"`);
  });

  it('masks a gateway secret registered after the text was first masked', () => {
    const text = '"model-heldlater-8812-xyz"';
    expect(redactRepeatedLogTextOf(text, [])).toBe(text);
    registerSecrets(['heldlater-8812-xyz']);
    expect(redactRepeatedLogTextOf(text, [])).toBe(`"model-${REDACTED}"`);
  });

  it('answers what redactSecrets answers, whatever the text and the request secrets', () => {
    const piece = fc.constantFrom('ab', 'sk-', 'key-', 'Bearer ', '\\u0061', '%61', '+', ' ', '"', '\\', 'secret', '1234', 'zz9', 'é', '\u2028');
    const text = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''));
    const secret = fc.oneof(
      fc.constant(undefined),
      fc.array(fc.constantFrom('ab', 'secret', '1234', 'zz9', ' ', '-', 'x'), { minLength: 1, maxLength: 5 }).map((p) => p.join('')),
    );
    fc.assert(
      fc.property(text, fc.array(secret, { maxLength: 3 }), (t, secrets) => {
        expect(redactRepeatedLogTextOf(t, secrets)).toBe(redactSecrets(t, secrets));
        // asked twice (the second time from the repeated texts)
        expect(redactRepeatedLogTextOf(t, secrets)).toBe(redactSecrets(t, secrets));
      }),
      { numRuns: 500 },
    );
  });
});

/** Keys self-hosted backends accept (the OpenAI SDK insists on one) and words a good answer holds. */
const PLACEHOLDERS = ['ollama', 'chat', 'lo', 'EMPTY', 'none', 'dummy', 'Bearer', 'llama3'];

describe('what counts as a secret: 8 characters or more, never a scheme word or an empty value', () => {
  const answer = JSON.stringify({
    id: 'chatcmpl-up1',
    object: 'chat.completion',
    model: 'ollama/llama3',
    choices: [{ index: 0, message: { role: 'assistant', content: 'lo and behold: EMPTY, none, dummy, Bearer' }, finish_reason: 'stop' }],
  });
  const chunks = [
    `data: ${JSON.stringify({ id: 'chatcmpl-up1', object: 'chat.completion.chunk', model: 'ollama/llama3', choices: [{ index: 0, delta: { content: 'lo' } }] })}\n\n`,
    `data: ${JSON.stringify({ id: 'chatcmpl-up1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'chat' } }] })}\n\n`,
    'data: [DONE]\n\n',
  ];

  it('a short placeholder key (bare or as a bearer value) leaves a 200 answer and its stream chunks byte-identical', () => {
    for (const key of PLACEHOLDERS) {
      const secrets = [key, `Bearer ${key}`];
      expect(redactAnswer(answer, secrets), key).toBe(answer);
      const bytes = Buffer.from(answer);
      expect(redactAnswerBytes(bytes, secrets), key).toBe(bytes);
      const redactChunk = answerBytesRedactor(secrets);
      for (const chunk of chunks) {
        const buf = Buffer.from(chunk);
        expect(redactChunk(buf), `${key}: ${chunk}`).toBe(buf);
      }
      expect(redactObject({ upstream_status: 200, upstream_body: answer }, secrets), key).toEqual({ upstream_status: 200, upstream_body: answer });
    }
  });

  it('an empty bearer value masks nothing: the scheme word is not a secret', () => {
    const message = 'No API key for openai: send it in x-gateway-api-key or Authorization: Bearer <key>.';
    for (const secrets of [['Bearer'], ['Bearer '], ['Bearer  \t'], [''], ['Basic'], ['api-key']]) {
      expect(redactSecrets(message, secrets), JSON.stringify(secrets)).toBe(message);
      expect(redactAnswer(JSON.stringify({ error: { message } }), secrets)).toBe(JSON.stringify({ error: { message } }));
    }
    expect(maskable('Bearer')).toBe(false);
    expect(maskable('Bearer ')).toBe(false);
    expect(maskable('Bearer ollama')).toBe(false);
    expect(maskable('')).toBe(false);
    expect(maskable('sk-12345')).toBe(true);
    expect(maskable('Bearer sk-12345')).toBe(true);
  });

  it('a key of 8 characters or more echoed in an error is masked in every escaping; so is an operator secret of 8', () => {
    const key = 'k"8\\ché/';
    const json = JSON.stringify(key).slice(1, -1);
    const spelled = [key, json, JSON.stringify(json).slice(1, -1), allU(key), upperU(key), everyOtherU(key), encodeURIComponent(key), encodeURIComponent(json)];
    for (const secrets of [[key], [`Bearer ${key}`]])
      for (const form of spelled) {
        const body = `{"error":{"message":"bad key ${form} given"}}`;
        expect(redactSecrets(body, secrets), form).toBe(`{"error":{"message":"bad key ${REDACTED} given"}}`);
        expect(redactAnswer(body, secrets), form).toBe(`{"error":{"message":"bad key ${REDACTED} given"}}`);
        expect(redactObject({ upstream_body: body }, secrets), form).toEqual({ upstream_body: `{"error":{"message":"bad key ${REDACTED} given"}}` });
      }
    const held = 'op-8char';
    registerSecrets([held]);
    for (const form of [held, allU(held), encodeURIComponent(JSON.stringify(held))]) {
      expect(redactLogLine(JSON.stringify({ msg: `saw ${form}` })), form).not.toMatch(/op-8char|006f/);
      expect(redactAnswer(`said ${form}`), form).not.toMatch(/op-8char|006f/);
    }
  });
});
