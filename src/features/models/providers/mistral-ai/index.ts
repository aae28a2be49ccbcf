import { openAICompatible } from '../openai-compatible/openai-compatible.js';
import { mistralFiles } from './files.js';
import { mistralFineTuning } from './fine-tuning.js';

/** Mistral AI: OpenAI-compatible API at https://api.mistral.ai/v1. */
export default openAICompatible({
  name: 'mistral-ai',
  displayName: 'Mistral AI',
  defaultBaseUrl: 'https://api.mistral.ai/v1',
  requiresKey: true,
  operations: [
    'chat.completions',
    'embeddings',
    'files.create',
    'files.list',
    'files.retrieve',
    'files.delete',
    'files.content',
    'fine_tuning.jobs.create',
    'fine_tuning.jobs.list',
    'fine_tuning.jobs.retrieve',
    'fine_tuning.jobs.cancel',
    'fine_tuning.jobs.events',
    'models.list',
  ],
  overrides: { ...mistralFiles, ...mistralFineTuning },
});
