import { openAICompatible } from '../openai-compatible/openai-compatible.js';
import { fireworksFineTuning } from './fine-tuning.js';

/** Fireworks AI: OpenAI-compatible API at https://api.fireworks.ai/inference/v1. */
export default openAICompatible({
  name: 'fireworks-ai',
  displayName: 'Fireworks AI',
  defaultBaseUrl: 'https://api.fireworks.ai/inference/v1',
  requiresKey: true,
  settingFields: ['fireworks_account_id'],
  operations: [
    'chat.completions',
    'completions',
    'embeddings',
    'models.list',
    'responses.create',
    'responses.retrieve',
    'responses.delete',
    'responses.cancel',
    'responses.input_items',
  ],
  overrides: fireworksFineTuning,
});
