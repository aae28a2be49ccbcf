import { openAICompatible } from '../openai-compatible/openai-compatible.js';
import { AUDIO_OPERATIONS, BATCHES_OPERATIONS, FILES_OPERATIONS, RESPONSES_OPERATIONS } from '../../../../contract/operations.js';

/** Groq: OpenAI-compatible API at https://api.groq.com/openai/v1. */
export default openAICompatible({
  name: 'groq',
  displayName: 'Groq',
  defaultBaseUrl: 'https://api.groq.com/openai/v1',
  reasoning: { renamed: true },
  requiresKey: true,
  operations: ['chat.completions', ...AUDIO_OPERATIONS, ...FILES_OPERATIONS, ...BATCHES_OPERATIONS, 'models.list', ...RESPONSES_OPERATIONS],
});
