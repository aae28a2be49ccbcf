import { openAICompatible } from '../openai-compatible/openai-compatible.js';

/** vLLM: OpenAI-compatible API at http://127.0.0.1:8000/v1. */
export default openAICompatible({
  name: 'vllm',
  displayName: 'vLLM',
  defaultBaseUrl: 'http://127.0.0.1:8000/v1',
  reasoning: { renamed: true },
  requiresKey: false,
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
