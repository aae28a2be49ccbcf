import { openAICompatible } from '../openai-compatible/openai-compatible.js';

/** OpenRouter: OpenAI-compatible API at https://openrouter.ai/api/v1. */
export default openAICompatible({
  name: 'openrouter',
  displayName: 'OpenRouter',
  defaultBaseUrl: 'https://openrouter.ai/api/v1',
  reasoning: { renamed: true },
  requiresKey: true,
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
});
