import { BARE_RATELIMIT_HEADERS } from '../shared/upstream-headers.js';
import { FILES_OPERATIONS, FINE_TUNING_OPERATIONS } from '../../../../contract/operations.js';
import { openAICompatible } from '../openai-compatible/openai-compatible.js';
import { togetherFiles } from './files.js';
import { togetherFineTuning } from './fine-tuning.js';
import { togetherImages } from './images.js';

/** Together AI: OpenAI-compatible API at https://api.together.xyz/v1. */
export default openAICompatible({
  name: 'together-ai',
  displayName: 'Together AI',
  defaultBaseUrl: 'https://api.together.xyz/v1',
  reasoning: { renamed: true },
  passHeaders: BARE_RATELIMIT_HEADERS,
  requiresKey: true,
  operations: ['chat.completions', 'completions', 'embeddings', 'images.generations', ...FILES_OPERATIONS, ...FINE_TUNING_OPERATIONS, 'models.list'],
  overrides: { ...togetherFiles, ...togetherFineTuning, ...togetherImages },
});
