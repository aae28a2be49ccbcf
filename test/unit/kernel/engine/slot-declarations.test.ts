import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { definedSlots, type Slot } from '../../../../src/kernel/engine/slot.js';
import { openStage, slotsOf, type AnyStageDefinition } from '../../../../src/kernel/engine/stage.js';
import { BUILTIN_STAGES } from '../../../../src/stages/builtin-stages.js';
import tokenOperations from '../../../../src/features/auth/token-operations.js';
import protectedResource from '../../../../src/features/auth/protected-resource-document.js';
import gatewayBatches from '../../../../src/features/files-batches/gateway-batches-stage.js';
import credentialOperations from '../../../../src/features/governance/credentials/credential-operations.js';
import tokenGovernance from '../../../../src/features/governance/admin/token-governance.js';
import adminResources from '../../../../src/features/governance/admin/admin-resources.js';
import catalogueModels from '../../../../src/features/governance/catalogue/catalogue-models-stage.js';
import keyLimits from '../../../../src/features/governance/keys/key-limits-stage.js';
import pinApproval from '../../../../src/features/mcp/pins/pin-approval.js';
import toolLoop from '../../../../src/features/tool-loop/tool-loop-stage.js';
import meterStage from '../../../../src/features/governance/metering/meter-stage.js';
import usageRoutes from '../../../../src/features/governance/metering/usage-routes.js';
import toolMeterStage from '../../../../src/features/governance/metering/tool-meter-stage.js';
import responsesState from '../../../../src/features/models/responses/responses-stage.js';
import responsesKept from '../../../../src/features/models/responses/responses-kept-stage.js';
import * as pluginApi from '../../../../src/plugin-api.js';
import oauthServer from '../../../../src/features/auth/oauth-server/oauth-server-stage.js';
import consoleUi from '../../../../src/features/console/console-ui-stage.js';
import adminConfig from '../../../../src/features/console/admin-config-stage.js';
import adminSession from '../../../../src/features/auth/admin-session-stage.js';
import adminModels from '../../../../src/features/governance/catalogue/admin-models-stage.js';
import adminMcpServers from '../../../../src/features/mcp/admin-servers-stage.js';
import mcpConnections from '../../../../src/features/mcp/connections/connections-stage.js';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');

/** Every stage the gateway registers: the built-ins and those its capabilities add. */
const STAGES: AnyStageDefinition[] = [
  ...BUILTIN_STAGES,
  tokenOperations,
  protectedResource,
  gatewayBatches,
  credentialOperations,
  tokenGovernance,
  adminResources,
  catalogueModels,
  keyLimits,
  pinApproval,
  toolLoop,
  meterStage,
  responsesKept,
  usageRoutes,
  toolMeterStage,
  responsesState,
  oauthServer,
  consoleUi,
  adminConfig,
  adminSession,
  adminModels,
  adminMcpServers,
  mcpConnections,
];

/** The configs whose slot lists differ (authenticate's credential, guardrail's tool mode). */
const CONFIGS: unknown[] = [{}, { credential: 'gateway' }, { credential: 'admin' }, { toolArguments: [], toolResults: [] }];

function declared(stage: AnyStageDefinition, lists: Array<'requires' | 'provides' | 'reads' | 'writes'>): Set<Slot<unknown>> {
  const out = new Set<Slot<unknown>>();
  for (const list of lists) for (const config of CONFIGS) for (const slot of slotsOf(openStage(stage)[list], config)) out.add(slot);
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : full.endsWith('.ts') ? [full] : [];
  });
}

/** Constant name -> slot name, from every `const NAME = defineSlot<...>('name'` of src/. */
function slotConstants(): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/const ([A-Z_]+) = defineSlot<.*?>\(\s*'([a-z0-9-]+)'/g)) out.set(m[1]!, m[2]!);
  }
  return out;
}

/** The file that defines each stage (`export default defineStage(... name: '<stage>'`). */
function stageFiles(): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    const m = /export default defineStage<[^\n]*\(\{\n\s+name: '([a-z-]+)'/.exec(readFileSync(file, 'utf8'));
    if (m) out.set(m[1]!, file);
  }
  return out;
}

describe('context slots take part in the order checks', () => {
  const slots = definedSlots();
  const byName = new Map(slots.map((s) => [s.name, s]));

  it('every slot is set by the edge or written by a stage (provides or writes), and every slot a stage requires or reads is written by one', () => {
    const written = new Set(STAGES.flatMap((s) => [...declared(s, ['provides', 'writes'])]));
    const read = new Set(STAGES.flatMap((s) => [...declared(s, ['requires', 'reads'])]));
    expect(slots.map((s) => s.name)).toEqual(expect.arrayContaining(['body', 'target', 'identity', 'usage', 'attempts', 'deadline', 'response']));
    expect(slots.filter((s) => !s.edge && !written.has(s)).map((s) => s.name)).toEqual([]);
    // What a stage needs, some stage (or the edge) gives.
    expect([...read].filter((s) => !s.edge && !written.has(s)).map((s) => s.name)).toEqual([]);
  });

  it("each stage's own file touches (ctx.get/set/has) only slots the stage declares", () => {
    const constants = slotConstants();
    const files = stageFiles();
    const missing: string[] = [];
    for (const stage of STAGES) {
      const file = files.get(stage.name);
      expect(file, stage.name).toBeDefined();
      const own = declared(stage, ['requires', 'provides', 'reads', 'writes']);
      const text = readFileSync(file!, 'utf8');
      for (const m of text.matchAll(/ctx\.(get|set|has)\(([A-Z_]+)\b/g)) {
        const slot = byName.get(constants.get(m[2]!) ?? '');
        expect(slot, `${m[2]} in ${file}`).toBeDefined();
        if (!own.has(slot!)) missing.push(`${relative(ROOT, file!)}: ${stage.name} ${m[1]}s ${slot!.name}`);
      }
      if (/ctx\.identity\b/.test(text) && !own.has(pluginApi.IDENTITY)) missing.push(`${stage.name} uses ctx.identity`);
      if (/ctx\.response\b/.test(text) && !own.has(pluginApi.RESPONSE)) missing.push(`${stage.name} uses ctx.response`);
    }
    expect([...new Set(missing)]).toEqual([]);
  });

  it('ctx.identity and ctx.response are the IDENTITY and RESPONSE slots', async () => {
    const { makeContext } = await import('../../../helpers/context.js');
    const ctx = makeContext({ method: 'GET', path: '/x', key: 'GET /x', body: 'none' });
    expect(ctx.identity).toBeNull();
    expect(ctx.has(pluginApi.IDENTITY)).toBe(false);
    ctx.identity = { kind: 'token', id: 't1' };
    expect(ctx.get(pluginApi.IDENTITY)).toEqual({ kind: 'token', id: 't1' });
    ctx.set(pluginApi.RESPONSE, { kind: 'empty', status: 204 });
    expect(ctx.response).toEqual({ kind: 'empty', status: 204 });
    ctx.identity = null;
    expect(ctx.has(pluginApi.IDENTITY)).toBe(false);
  });

  it('the plugin API exports every slot a built-in stage declares', () => {
    const exported = new Set(Object.values<unknown>(pluginApi).filter((v): v is Slot<unknown> => typeof v === 'object' && v !== null && 'index' in v && 'label' in v));
    const public_ = slots.filter((s) => !['guardrail-input-done', 'answer-facts', 'rate-limit-token-slots'].includes(s.name));
    expect(public_.filter((s) => !exported.has(s)).map((s) => s.name)).toEqual([]);
  });
});
