import { describe, it } from 'vitest';
import { RuleTester } from 'eslint';
import { join } from 'node:path';
import { ROOT } from '../helpers/built-gateway.js';
import { layers } from '../../eslint/layers.js';

/** The lint rule of eslint/layers.js: the layers of src/, and features (and the stages of src/stages) reaching a feature only through its public entry. */
RuleTester.describe = describe;
RuleTester.it = it;
const tester = new RuleTester({ languageOptions: { ecmaVersion: 2023, sourceType: 'module' } });
const file = (path: string) => join(ROOT, 'src', path);

tester.run('layers', layers, {
  valid: [
    { filename: file('features/mcp/policy/tool-guardrails.ts'), code: "import { TextView } from '../../guardrails/index.js';" },
    { filename: file('features/governance/keys/key-limits-stage.ts'), code: "import { sharedRedis } from '../../../kernel/store/redis-client.js';" },
    { filename: file('features/models/routing/plan.ts'), code: "import { TARGET } from '../model-request.js';" },
    { filename: file('stages/route.ts'), code: "import { routingConfigs } from '../features/models/index.js';" },
    { filename: file('stages/builtin-stages.ts'), code: "export { MCP_STAGES } from '../features/mcp/index.js';" },
    { filename: file('features/models/stages/fallback.ts'), code: "import { PlanRunner } from '../routing/plan-runner.js';" },
    { filename: file('stages/normalize-error.ts'), code: "import { errorShapes } from '../kernel/engine/error-shapes.js';" },
    { filename: file('features/tool-loop/gateway-tools.ts'), code: "export { MCP } from '../mcp/index.js';" },
  ],
  invalid: [
    { filename: file('features/files-batches/batch-mode.ts'), code: "import { TARGET } from '../models/model-request.js';", errors: [{ messageId: 'feature' }] },
    { filename: file('features/mcp/relay/session-bus.ts'), code: "import { sharedRedis } from '../../models/routing/resilience-services.js';", errors: [{ messageId: 'feature' }] },
    { filename: file('features/governance/index.ts'), code: "export { MCP } from '../mcp/mcp-services.js';", errors: [{ messageId: 'feature' }] },
    { filename: file('features/tool-loop/chat-loop.ts'), code: "const m = import('../models/stream-answer.js');", errors: [{ messageId: 'feature' }] },
    { filename: file('kernel/store/redis-client.ts'), code: "import { TARGET } from '../../features/models/index.js';", errors: [{ messageId: 'layer' }] },
    { filename: file('stages/route.ts'), code: "import { routingConfigs } from '../features/models/routing/resilience-services.js';", errors: [{ messageId: 'stage' }] },
    { filename: file('stages/validate.ts'), code: "import { IMAGE_LIMIT } from '../features/media/image-edit-upload.js';", errors: [{ messageId: 'stage' }] },
    { filename: file('stages/authenticate.ts'), code: "import { PROVIDERS } from '../features/models/providers/provider-registry.js';", errors: [{ messageId: 'stage' }] },
    { filename: file('stages/guardrail.ts'), code: "export { TOOL_GUARD } from '../features/mcp/policy/tool-guardrails.js';", errors: [{ messageId: 'stage' }] },
    { filename: file('stages/cors.ts'), code: "const o = import('../features/mcp/transport/origin.js');", errors: [{ messageId: 'stage' }] },
  ],
});
