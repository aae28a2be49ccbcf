import { openAICompatible } from '../openai-compatible/openai-compatible.js';

/** xAI: OpenAI-compatible API at https://api.x.ai/v1. */
export default openAICompatible({
  name: 'x-ai',
  displayName: 'xAI',
  defaultBaseUrl: 'https://api.x.ai/v1',
  requiresKey: true,
  operations: [
    'chat.completions',
    'completions',
    'embeddings',
    'images.generations',
    'models.list',
    'responses.create',
    'responses.retrieve',
    'responses.delete',
    'responses.cancel',
    'responses.input_items',
  ],
});
