import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGateway, freePort, spawnGateway, waitForHealth, type GatewayProcess } from '../helpers/built-gateway.js';

/**
 * A pipeline whose order gives a stage what it needs too late, or two pipelines that claim a
 * route with equally specific patterns, stop the built gateway at start-up: exit code 1 and one
 * line naming the file, the stage and what it lacks.
 */
describe('pipeline problems at start-up (the built process)', { timeout: 90_000 }, () => {
  let dir: string;
  const running: GatewayProcess[] = [];

  beforeAll(() => {
    buildGateway();
    dir = mkdtempSync(join(tmpdir(), 'gw-pipeline-startup-'));
  }, 240_000);
  afterAll(() => {
    for (const p of running) p.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Writes a pipelines folder with `files` and a config pointing at it; returns the folder. */
  function setup(name: string, files: Record<string, string>): { config: string; pipes: string } {
    const pipes = join(dir, name);
    mkdirSync(pipes, { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(pipes, file), text);
    const config = join(dir, `${name}.yaml`);
    writeFileSync(config, `server:\n  host: 127.0.0.1\npipelines:\n  dir: ${pipes}\n`);
    return { config, pipes };
  }

  async function failsWith(config: string): Promise<string[]> {
    const proc = spawnGateway(['--config', config], { env: { GATEWAY_DATA_DIR: join(dir, 'data') } });
    running.push(proc);
    const { code } = await proc.exited;
    expect(code, proc.stderr()).toBe(1);
    return proc
      .stderr()
      .split('\n')
      .filter((l) => l !== '');
  }

  it('a stage before the stage that provides what it needs', async () => {
    const { config, pipes } = setup('late', {
      'chat.yaml': 'name: chat\nextends: chat\nremove: [retry]\ninsert:\n  - before: fallback\n    stages: [retry]\n',
    });
    expect(await failsWith(config)).toEqual([
      `${join(pipes, 'chat.yaml')}: stage retry needs a target, which fallback provides; fallback is not before it`,
      `${join(pipes, 'chat.yaml')}: stage fallback must run once per request, but retry before it runs the rest of the pipeline once per attempt; put fallback before retry`,
    ]);
  });

  it('responses-state before the stage that picks the target', async () => {
    const { config, pipes } = setup('responses-early', {
      'responses.yaml': 'name: responses\nextends: responses\nremove: [responses-state]\ninsert:\n  - before: route\n    stages: [responses-state]\n',
    });
    expect(await failsWith(config)).toEqual([`${join(pipes, 'responses.yaml')}: stage responses-state needs a target, which fallback provides; fallback is not before it`]);
  });

  it('a stage whose provider the pipeline lacks', async () => {
    const { config, pipes } = setup('lacking', { 'embeddings.yaml': 'name: embeddings\nextends: embeddings\nremove: [authenticate, rate-limit]\n' });
    expect(await failsWith(config)).toEqual([
      `${join(pipes, 'embeddings.yaml')}: stage route needs the provider credentials (x-gateway-provider and its key), which authenticate provides; the pipeline has no authenticate before it`,
    ]);
  });

  it('a provider that may not run (when:)', async () => {
    const { config, pipes } = setup('conditional', {
      'models.yaml': 'name: models\nextends: models\nremove: [fallback]\ninsert:\n  - before: guardrail\n    stages:\n      - fallback: {}\n        when: { method: GET }\n',
    });
    expect(await failsWith(config)).toEqual([
      `${join(pipes, 'models.yaml')}: stage guardrail needs a target, which fallback provides only when its when: matches; guardrail may run without it`,
      `${join(pipes, 'models.yaml')}: stage cache needs a target, which fallback provides only when its when: matches; cache may run without it`,
      `${join(pipes, 'models.yaml')}: stage retry needs a target, which fallback provides only when its when: matches; retry may run without it`,
      `${join(pipes, 'models.yaml')}: stage forward needs a target, which fallback provides only when its when: matches; forward may run without it`,
    ]);
  });

  it('a once-per-request stage after the strategy, which runs the rest once per attempt', async () => {
    const { config, pipes } = setup('per-attempt', { 'media.yaml': 'name: media\nextends: media\nremove: [rate-limit]\ninsert:\n  - after: fallback\n    stages: [rate-limit]\n' });
    expect(await failsWith(config)).toEqual([
      `${join(pipes, 'media.yaml')}: stage rate-limit must run once per request, but fallback before it runs the rest of the pipeline once per attempt; put rate-limit before fallback`,
    ]);
  });

  it('a pipeline that can end without an answer (chat without forward): start-up and --check both refuse it, naming the file', async () => {
    const { config, pipes } = setup('no-answer', { 'chat.yaml': 'name: chat\nextends: chat\nremove: [forward]\n' });
    const line = `${join(pipes, 'chat.yaml')}: pipeline chat has no stage that answers (such as forward); requests to POST /v1/chat/completions, POST /v1/completions would end without an answer`;
    expect(await failsWith(config)).toEqual([line]);
    const check = spawnGateway(['--check', '--config', config], { env: { GATEWAY_DATA_DIR: join(dir, 'data') } });
    running.push(check);
    const { code } = await check.exited;
    expect(code, check.stderr()).not.toBe(0);
    expect(check.stderr() + check.stdout()).toContain(line);
  });

  it('an answering stage that runs only when its when: matches, and a stage after one that answers', async () => {
    const { config, pipes } = setup('half-answer', {
      'embeddings.yaml': 'name: embeddings\nextends: embeddings\nremove: [forward]\ninsert:\n  - after: retry\n    stages:\n      - forward: {}\n        when: { method: POST }\n',
      'models.yaml': 'name: models\nextends: models\ninsert:\n  - after: forward\n    stages: [forward-identity]\n',
    });
    expect(await failsWith(config)).toEqual([
      `${join(pipes, 'embeddings.yaml')}: pipeline embeddings answers only when the when: of forward matches; the other requests to POST /v1/embeddings would end without an answer (remove the when: or add a stage that answers, such as forward)`,
      `${join(pipes, 'models.yaml')}: stage forward-identity after forward never runs: forward answers every request that reaches it`,
    ]);
  });

  it('two pipelines whose equally specific patterns claim one route', async () => {
    const { config, pipes } = setup('tie', {
      'my-chat.yaml': 'name: my-chat\nextends: chat\nroutes: ["POST /v1/chat/completions"]\n',
    });
    const lines = await failsWith(config);
    expect(lines).toEqual([
      `${join(pipes, 'my-chat.yaml')}: routes: "POST /v1/chat/completions" and "POST /v1/chat/completions" of pipelines/chat.yaml (pipeline chat) both claim POST /v1/chat/completions and neither is more specific`,
    ]);
  });

  it('a more specific pattern wins over a shipped one: no tie, and the route runs the user pipeline', async () => {
    const { pipes } = setup('specific', {
      'files-one.yaml': 'name: files-one\nextends: files\nroutes: ["GET /v1/files/{file_id}"]\nremove: [gateway-batches]\n',
    });
    const port = await freePort();
    const config = join(dir, 'specific-ok.yaml');
    writeFileSync(config, `server:\n  host: 127.0.0.1\n  port: ${port}\npipelines:\n  dir: ${pipes}\n`);
    const proc = spawnGateway(['--config', config], { env: { GATEWAY_DATA_DIR: join(dir, 'data-ok') } });
    running.push(proc);
    await waitForHealth(`http://127.0.0.1:${port}`, proc);
    // Gateway-run files are gone from this route only: a gateway file id now goes to the provider.
    const one = await fetch(`http://127.0.0.1:${port}/v1/files/file-gw-x`, { headers: { 'x-gateway-provider': 'ollama' } });
    expect(one.status).toBe(400);
    expect(((await one.json()) as any).error.message).toMatch(/does not support GET \/v1\/files\/\{file_id\}/);
    const list = await fetch(`http://127.0.0.1:${port}/v1/files`, { headers: { 'x-gateway-provider': 'ollama' } });
    expect(list.status).toBe(200);
    proc.child.kill('SIGTERM');
    expect((await proc.exited).code).toBe(0);
  });
});
