import { openAICompatible } from '../openai-compatible/openai-compatible.js';

/** Groq: OpenAI-compatible API at https://api.groq.com/openai/v1. */
export default openAICompatible({
  name: 'groq',
  displayName: 'Groq',
  defaultBaseUrl: 'https://api.groq.com/openai/v1',
  reasoning: { renamed: true },
  requiresKey: true,
  operations: [
    'chat.completions',
    'audio.speech',
    'audio.transcriptions',
    'audio.translations',
    'files.create',
    'files.list',
    'files.retrieve',
    'files.delete',
    'files.content',
    'batches.create',
    'batches.list',
    'batches.retrieve',
    'batches.cancel',
    'models.list',
    'responses.create',
    'responses.retrieve',
    'responses.delete',
    'responses.cancel',
    'responses.input_items',
  ],
});
