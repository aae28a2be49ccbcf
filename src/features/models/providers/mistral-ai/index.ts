import { openAICompatible } from '../openai-compatible/openai-compatible.js';
import { FILES_OPERATIONS, FINE_TUNING_OPERATIONS } from '../../../../contract/operations.js';
import { mistralFiles } from './files.js';
import { mistralFineTuning } from './fine-tuning.js';

/** Mistral AI: OpenAI-compatible API at https://api.mistral.ai/v1. */
export default openAICompatible({
  name: 'mistral-ai',
  displayName: 'Mistral AI',
  defaultBaseUrl: 'https://api.mistral.ai/v1',
  requiresKey: true,
  operations: ['chat.completions', 'embeddings', ...FILES_OPERATIONS, ...FINE_TUNING_OPERATIONS, 'models.list'],
  overrides: { ...mistralFiles, ...mistralFineTuning },
});
