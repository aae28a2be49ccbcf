import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import OpenAI, { toFile } from 'openai';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { fixtureJson } from '../helpers/fixtures.js';
import { parseForm } from '../helpers/multipart.js';

const sha = (b: Buffer | Uint8Array) => createHash('sha256').update(b).digest('hex');
const KEY = 'sk-test-files-ft-00000001';

describe('files, provider batches and fine-tuning through the openai SDK', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  const payload = randomBytes(12 * 1024 * 1024);
  const download = randomBytes(18 * 1024 * 1024);
  const client = (provider: string, headers: Record<string, string> = {}) =>
    new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, defaultHeaders: { 'x-gateway-provider': provider, ...headers }, maxRetries: 0 });

  beforeAll(async () => {
    const ft = fixtureJson('openai', 'fine-tuning-job');
    upstream = await new FakeUpstream()
      // openai
      .on('POST /v1/files', { json: fixtureJson('openai', 'file') })
      .on('GET /v1/files', { json: { object: 'list', data: [fixtureJson('openai', 'file')], has_more: false, first_id: 'file-abc123', last_id: 'file-abc123' } })
      .on('GET /v1/files/file-abc123', { json: fixtureJson('openai', 'file') })
      .on('DELETE /v1/files/file-abc123', { json: { id: 'file-abc123', object: 'file', deleted: true } })
      .on('GET /v1/files/file-abc123/content', { raw: download, headers: { 'content-type': 'application/octet-stream' } })
      .on('POST /v1/batches', { json: fixtureJson('openai', 'batch') })
      .on('GET /v1/batches/batch_abc123', { json: { ...fixtureJson('openai', 'batch'), status: 'in_progress' } })
      .on('POST /v1/batches/batch_abc123/cancel', { json: { ...fixtureJson('openai', 'batch'), status: 'cancelling' } })
      .on('GET /v1/batches', { json: { object: 'list', data: [fixtureJson('openai', 'batch')], has_more: false } })
      .on('POST /v1/fine_tuning/jobs', { json: ft })
      .on('GET /v1/fine_tuning/jobs/ftjob-abc123', { json: fixtureJson('openai', 'fine-tuning-job-succeeded') })
      .on('GET /v1/fine_tuning/jobs', { json: { object: 'list', data: [ft, { ...ft, id: 'ftjob-older', status: 'queued' }], has_more: true } })
      .on('POST /v1/fine_tuning/jobs/ftjob-abc123/cancel', { json: { ...ft, status: 'cancelled' } })
      .on('GET /v1/fine_tuning/jobs/ftjob-abc123/events', { json: fixtureJson('openai', 'fine-tuning-events') })
      .on('POST /v1/chat/completions', { json: fixtureJson('openai', 'chat') })
      // together-ai
      .on('POST /together/v1/files/upload', { json: fixtureJson('together-ai', 'file') })
      .on('GET /together/v1/files', {
        json: { data: [fixtureJson('together-ai', 'file'), { ...fixtureJson('together-ai', 'file'), id: 'file-newer', created_at: 1715029999, purpose: 'batch-api' }] },
      })
      .on('POST /together/v1/fine-tunes', { json: fixtureJson('together-ai', 'fine-tune') })
      .on('GET /together/v1/fine-tunes/ft-1', {
        json: { ...fixtureJson('together-ai', 'fine-tune'), status: 'completed', token_count: 4321, updated_at: '2024-11-07T06:31:56.000Z' },
      })
      .on('GET /together/v1/fine-tunes/ft-1/events', { json: fixtureJson('together-ai', 'fine-tune-events') })
      .on('POST /together/v1/fine-tunes/ft-1/cancel', { json: { ...fixtureJson('together-ai', 'fine-tune'), status: 'cancel_requested' } })
      .on('POST /together/v1/chat/completions', { json: fixtureJson('openai', 'chat') })
      // mistral-ai
      .on('GET /mistral/v1/files', { json: fixtureJson('mistral-ai', 'files') })
      .on('POST /mistral/v1/fine_tuning/jobs', { json: fixtureJson('mistral-ai', 'fine-tuning-job') })
      .on('GET /mistral/v1/fine_tuning/jobs/job-m', {
        json: { ...fixtureJson('mistral-ai', 'fine-tuning-job'), status: 'SUCCESS', fine_tuned_model: 'ft:open-mistral-7b:7ad642c1:20240531:support' },
      })
      .on('POST /mistral/v1/fine_tuning/jobs/job-m/cancel', { json: { ...fixtureJson('mistral-ai', 'fine-tuning-job'), status: 'CANCELLATION_REQUESTED' } })
      // fireworks-ai
      .on('POST /v1/accounts/acme/supervisedFineTuningJobs', { json: fixtureJson('fireworks-ai', 'sft-job') })
      .on('GET /v1/accounts/acme/supervisedFineTuningJobs/sftj-9f8e7d', {
        json: { ...fixtureJson('fireworks-ai', 'sft-job'), state: 'JOB_STATE_COMPLETED', completedTime: '2025-01-10T11:00:00Z' },
      })
      .on('GET /v1/accounts/acme/supervisedFineTuningJobs', { json: { supervisedFineTuningJobs: [fixtureJson('fireworks-ai', 'sft-job')], nextPageToken: '', totalSize: 1 } })
      .on('POST /v1/accounts/acme/supervisedFineTuningJobs/sftj-9f8e7d:cancel', { json: { ...fixtureJson('fireworks-ai', 'sft-job'), state: 'JOB_STATE_CANCELLED' } })
      // groq
      .on('POST /groq/openai/v1/files', { json: { ...fixtureJson('openai', 'file'), id: 'file_01jh6x76wtemjr74t1fh0faj5t', purpose: 'batch' } })
      .on('POST /groq/openai/v1/batches', { json: fixtureJson('groq', 'batch') })
      .on('GET /groq/openai/v1/files', { json: { object: 'list', data: [{ ...fixtureJson('openai', 'file'), id: 'file_g1' }] } })
      // azure-openai
      .on('POST /openai/files', { json: fixtureJson('openai', 'file') })
      .on('POST /openai/batches', { json: fixtureJson('openai', 'batch') })
      .on('POST /openai/fine_tuning/jobs', { json: ft })
      .start();
    gw = await startGateway({
      providers: {
        openai: { baseUrl: `${upstream.url}/v1` },
        'together-ai': { baseUrl: `${upstream.url}/together/v1` },
        'mistral-ai': { baseUrl: `${upstream.url}/mistral/v1` },
        'fireworks-ai': { baseUrl: `${upstream.url}/inference/v1` },
        groq: { baseUrl: `${upstream.url}/groq/openai/v1` },
        'azure-openai': { baseUrl: upstream.url },
      },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  describe('files', () => {
    it('uploads 12 MB to openai byte for byte, the form checked whole first and sent with its exact length', async () => {
      const file = await client('openai').files.create({ file: await toFile(payload, 'train.jsonl'), purpose: 'fine-tune' });
      expect(file).toEqual(fixtureJson('openai', 'file'));
      const sent = upstream.received('POST /v1/files').at(-1)!;
      const form = await parseForm(sent);
      expect(sha(form.files[0]!.data)).toBe(sha(payload));
      expect(form.fields.purpose).toEqual(['fine-tune']);
      expect(Number(sent.headers['content-length'])).toBe(sent.body.length);
    });

    it('downloads 18 MB of file content byte for byte', async () => {
      const res = await client('openai').files.content('file-abc123');
      expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(sha(download));
    });

    it('lists, retrieves and deletes openai files as they are', async () => {
      const openai = client('openai');
      const page = await openai.files.list({ limit: 5 });
      expect(page.data).toEqual([fixtureJson('openai', 'file')]);
      expect(upstream.received('GET /v1/files').at(-1)!.url).toBe('/v1/files?limit=5');
      expect(await openai.files.retrieve('file-abc123')).toEqual(fixtureJson('openai', 'file'));
      expect(await openai.files.delete('file-abc123')).toEqual({ id: 'file-abc123', object: 'file', deleted: true });
    });

    it('uploads to together-ai at /files/upload with file_name, and maps its file objects', async () => {
      const together = client('together-ai');
      const file = await together.files.create({ file: await toFile(payload.subarray(0, 100_000), 'train.jsonl'), purpose: 'fine-tune' });
      expect(file).toMatchObject({
        id: fixtureJson('together-ai', 'file').id,
        object: 'file',
        bytes: 2664,
        created_at: 1715021438,
        filename: 'train.jsonl',
        purpose: 'fine-tune',
        status: 'processed',
      });
      const form = await parseForm(upstream.received('POST /together/v1/files/upload').at(-1)!);
      expect(form.fields).toMatchObject({ purpose: ['fine-tune'], file_name: ['train.jsonl'] });
      expect(sha(form.files[0]!.data)).toBe(sha(payload.subarray(0, 100_000)));
      const list = await together.files.list({ limit: 1 });
      expect(list.data.map((f) => [f.id, f.purpose])).toEqual([['file-newer', 'batch']]);
      expect(list.has_more).toBe(true);
    });

    it('windows mistral-ai file lists the contract way', async () => {
      const page = await client('mistral-ai').files.list({ limit: 1 });
      expect(page.data.map((f) => f.id)).toEqual(['0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0']);
      expect(page.has_more).toBe(true);
      expect(upstream.received('GET /mistral/v1/files').at(-1)!.url).toBe('/mistral/v1/files?page=0&page_size=2');
      const next = await client('mistral-ai').files.list({ limit: 1, after: '0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0' });
      expect(next.data.map((f) => f.id)).toEqual(['e5b9c1a2-6d3f-4f7a-9c8b-1a2b3c4d5e6f']);
      expect(next.has_more).toBe(false);
    });

    it('adds has_more to a groq file list that lacks it', async () => {
      const page = await client('groq').files.list();
      expect(page.has_more).toBe(false);
      expect(page.data[0]!.id).toBe('file_g1');
    });

    it('refuses an upload without purpose before it goes upstream', async () => {
      const before = upstream.received('POST /v1/files').length;
      const err = await client('openai')
        .files.create({ file: await toFile(Buffer.from('{}'), 'a.jsonl') } as any)
        .catch((e) => e);
      expect(err.status).toBe(400);
      expect(err.error.param).toBe('purpose');
      expect(upstream.received('POST /v1/files').length).toBe(before);
    });
  });

  describe('provider batches', () => {
    it('forwards openai batches: create, retrieve, list, cancel', async () => {
      const openai = client('openai');
      const batch = await openai.batches.create({ input_file_id: 'file-abc123', endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { job: 'nightly' } });
      expect(batch).toEqual(fixtureJson('openai', 'batch'));
      expect(upstream.received('POST /v1/batches').at(-1)!.json()).toEqual({
        input_file_id: 'file-abc123',
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
        metadata: { job: 'nightly' },
      });
      expect((await openai.batches.retrieve('batch_abc123')).status).toBe('in_progress');
      expect((await openai.batches.list({ limit: 3 })).data).toHaveLength(1);
      expect((await openai.batches.cancel('batch_abc123')).status).toBe('cancelling');
    });

    it('forwards groq files and batches', async () => {
      const groq = client('groq');
      const file = await groq.files.create({ file: await toFile(Buffer.from('{"custom_id":"a"}\n'), 'in.jsonl'), purpose: 'batch' });
      const batch = await groq.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      expect(batch).toEqual(fixtureJson('groq', 'batch'));
    });

    it('forwards azure-openai files, batches and fine-tuning to the resource paths', async () => {
      const azure = client('azure-openai', { 'x-gateway-azure-resource-name': 'acme', 'x-gateway-azure-api-version': '2024-10-21' });
      const file = await azure.files.create({ file: await toFile(payload.subarray(0, 5000), 'in.jsonl'), purpose: 'batch' });
      expect(file.id).toBe('file-abc123');
      const sent = upstream.received('POST /openai/files').at(-1)!;
      expect(sent.url).toBe('/openai/files?api-version=2024-10-21');
      expect(sent.headers['api-key']).toBe(KEY);
      expect(sha((await parseForm(sent)).files[0]!.data)).toBe(sha(payload.subarray(0, 5000)));
      await azure.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      expect(upstream.received('POST /openai/batches')).toHaveLength(1);
      const job = await azure.fineTuning.jobs.create({ model: 'gpt-4o-mini', training_file: file.id });
      expect(job.status).toBe('created');
    });
  });

  describe('fine-tuning', () => {
    it('openai: create answers the spec job (validating_files is created), a succeeded job names its model, which chat then reaches', async () => {
      const openai = client('openai');
      const job = await openai.fineTuning.jobs.create({ model: 'gpt-4o-mini-2024-07-18', training_file: 'file-abc123', suffix: 'support-bot', hyperparameters: { n_epochs: 3 } });
      expect(job).toMatchObject({
        id: 'ftjob-abc123',
        object: 'fine_tuning.job',
        status: 'created',
        organization_id: 'org-123',
        result_files: [],
        trained_tokens: null,
        fine_tuned_model: null,
        finished_at: null,
        validation_file: null,
        hyperparameters: { n_epochs: 'auto', batch_size: 'auto', learning_rate_multiplier: 'auto' },
      });
      expect(upstream.received('POST /v1/fine_tuning/jobs').at(-1)!.json()).toEqual({
        model: 'gpt-4o-mini-2024-07-18',
        training_file: 'file-abc123',
        suffix: 'support-bot',
        hyperparameters: { n_epochs: 3 },
      });
      const done = await openai.fineTuning.jobs.retrieve('ftjob-abc123');
      expect(done).toMatchObject({ status: 'succeeded', fine_tuned_model: 'ft:gpt-4o-mini-2024-07-18:org-123:support-bot:9xYz12', trained_tokens: 5768, finished_at: 1721768400 });
      await openai.chat.completions.create({ model: done.fine_tuned_model!, messages: [{ role: 'user', content: 'Hi' }] });
      expect(upstream.received('POST /v1/chat/completions').at(-1)!.json().model).toBe('ft:gpt-4o-mini-2024-07-18:org-123:support-bot:9xYz12');
    });

    it('openai: lists jobs with limit and after, cancels, lists events', async () => {
      const openai = client('openai');
      const page = await openai.fineTuning.jobs.list({ limit: 2, after: 'ftjob-x' });
      expect(page.data.map((j) => [j.id, j.status])).toEqual([
        ['ftjob-abc123', 'created'],
        ['ftjob-older', 'created'],
      ]);
      expect(page.has_more).toBe(true);
      expect(upstream.received('GET /v1/fine_tuning/jobs').at(-1)!.url).toBe('/v1/fine_tuning/jobs?limit=2&after=ftjob-x');
      expect((await openai.fineTuning.jobs.cancel('ftjob-abc123')).status).toBe('cancelled');
      const events = await openai.fineTuning.jobs.listEvents('ftjob-abc123', { limit: 2 });
      expect(events.data.map((e) => e.message)).toEqual(['The job has successfully completed', 'Validating training file: file-abc123']);
    });

    it('refuses a suffix over 40 characters and a missing training_file', async () => {
      const openai = client('openai');
      const e1 = await openai.fineTuning.jobs.create({ model: 'gpt-4o-mini', training_file: 'file-1', suffix: 's'.repeat(41) }).catch((e) => e);
      expect(e1.status).toBe(400);
      expect(e1.error.param).toBe('suffix');
      const e2 = await openai.fineTuning.jobs.create({ model: 'gpt-4o-mini' } as any).catch((e) => e);
      expect(e2.error.param).toBe('training_file');
    });

    it('together-ai: maps the create body and the job, events and cancel; the fine-tuned model works in chat', async () => {
      const together = client('together-ai');
      const job = await together.fineTuning.jobs.create({
        model: 'meta-llama/Meta-Llama-3.1-8B-Instruct-Reference',
        training_file: 'file-7c1a9f3e-33d1-4c4b-9a43-5a1f0d2b7e10',
        suffix: 'support-bot',
        hyperparameters: { n_epochs: 3, batch_size: 16 },
      });
      expect(job).toMatchObject({
        object: 'fine_tuning.job',
        status: 'created',
        created_at: 1730957516,
        fine_tuned_model: null,
        organization_id: 'together-ai',
        validation_file: null,
      });
      expect(job.hyperparameters).toMatchObject({ n_epochs: 3, batch_size: 16, learning_rate_multiplier: 'auto' });
      expect(upstream.received('POST /together/v1/fine-tunes').at(-1)!.json()).toEqual({
        model: 'meta-llama/Meta-Llama-3.1-8B-Instruct-Reference',
        training_file: 'file-7c1a9f3e-33d1-4c4b-9a43-5a1f0d2b7e10',
        suffix: 'support-bot',
        n_epochs: 3,
        batch_size: 16,
      });
      const done = await together.fineTuning.jobs.retrieve('ft-1');
      expect(done).toMatchObject({
        status: 'succeeded',
        fine_tuned_model: 'acme/Meta-Llama-3.1-8B-Instruct-Reference-support-bot-1a2b3c',
        trained_tokens: 4321,
        finished_at: 1730961116,
      });
      await together.chat.completions.create({ model: done.fine_tuned_model!, messages: [{ role: 'user', content: 'Hi' }] });
      expect(upstream.received('POST /together/v1/chat/completions').at(-1)!.json().model).toBe(done.fine_tuned_model);
      const events = await together.fineTuning.jobs.listEvents('ft-1');
      expect(events.data.map((e) => e.message)).toEqual(['Training started', 'Fine tune request created']);
      expect((await together.fineTuning.jobs.cancel('ft-1')).status).toBe('cancelled');
      const e = await together.fineTuning.jobs.create({ model: 'm', training_file: 'f', hyperparameters: { learning_rate_multiplier: 2 } }).catch((x) => x);
      expect(e.status).toBe(422);
      expect(e.error.param).toBe('hyperparameters.learning_rate_multiplier');
    });

    it('mistral-ai: maps the create body (training_files, epochs, auto_start), statuses and events', async () => {
      const mistral = client('mistral-ai');
      const job = await mistral.fineTuning.jobs.create({
        model: 'open-mistral-7b',
        training_file: 'e5b9c1a2-6d3f-4f7a-9c8b-1a2b3c4d5e6f',
        suffix: 'support',
        hyperparameters: { n_epochs: 2 },
      });
      expect(job).toMatchObject({
        status: 'created',
        training_file: 'e5b9c1a2-6d3f-4f7a-9c8b-1a2b3c4d5e6f',
        organization_id: 'mistral-ai',
        hyperparameters: { n_epochs: 2, batch_size: 'auto', learning_rate_multiplier: 'auto' },
      });
      expect(upstream.received('POST /mistral/v1/fine_tuning/jobs').at(-1)!.json()).toEqual({
        auto_start: true,
        model: 'open-mistral-7b',
        suffix: 'support',
        training_files: [{ file_id: 'e5b9c1a2-6d3f-4f7a-9c8b-1a2b3c4d5e6f', weight: 1 }],
        hyperparameters: { epochs: 2 },
      });
      const done = await mistral.fineTuning.jobs.retrieve('job-m');
      expect(done).toMatchObject({ status: 'succeeded', fine_tuned_model: 'ft:open-mistral-7b:7ad642c1:20240531:support' });
      expect((await mistral.fineTuning.jobs.cancel('job-m')).status).toBe('cancelled');
      const events = await mistral.fineTuning.jobs.listEvents('job-m');
      expect(events.data.map((e) => e.message)).toEqual(['status-updated: RUNNING', 'status-updated: QUEUED']);
    });

    it('fireworks-ai: supervised fine-tuning jobs on the control plane, named by account', async () => {
      const fireworks = client('fireworks-ai', { 'x-gateway-fireworks-account-id': 'acme' });
      const job = await fireworks.fineTuning.jobs.create({
        model: 'llama-v3p1-8b-instruct',
        training_file: 'support-train',
        suffix: 'support-bot',
        hyperparameters: { n_epochs: 2, batch_size: 8 },
      });
      expect(job).toMatchObject({
        id: 'sftj-9f8e7d',
        status: 'created',
        organization_id: 'acme',
        model: 'accounts/fireworks/models/llama-v3p1-8b-instruct',
        fine_tuned_model: null,
      });
      expect(upstream.received('POST /v1/accounts/acme/supervisedFineTuningJobs').at(-1)!.json()).toEqual({
        dataset: 'accounts/acme/datasets/support-train',
        baseModel: 'accounts/fireworks/models/llama-v3p1-8b-instruct',
        epochs: 2,
        batchSizeSamples: 8,
        displayName: 'support-bot',
      });
      const done = await fireworks.fineTuning.jobs.retrieve('sftj-9f8e7d');
      expect(done).toMatchObject({ status: 'succeeded', fine_tuned_model: 'accounts/acme/models/sftj-9f8e7d' });
      expect((await fireworks.fineTuning.jobs.list()).data.map((j) => j.id)).toEqual(['sftj-9f8e7d']);
      expect((await fireworks.fineTuning.jobs.cancel('sftj-9f8e7d')).status).toBe('cancelled');
      const noAccount = await client('fireworks-ai')
        .fineTuning.jobs.retrieve('sftj-9f8e7d')
        .catch((e) => e);
      expect(noAccount.status).toBe(400);
      expect(noAccount.error.param).toBe('x-gateway-fireworks-account-id');
      const events = await fireworks.fineTuning.jobs.listEvents('sftj-9f8e7d').catch((e) => e);
      expect(events.status).toBe(400);
    });
  });
});
