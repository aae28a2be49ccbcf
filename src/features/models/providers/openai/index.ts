import { openAICompatible } from '../openai-compatible/openai-compatible.js';
import { OPENAI_API_OPERATIONS } from '../../../../contract/operations.js';

/** OpenAI: OpenAI-compatible API at https://api.openai.com/v1. */
export default openAICompatible({
  name: 'openai',
  displayName: 'OpenAI',
  defaultBaseUrl: 'https://api.openai.com/v1',
  requiresKey: true,
  operations: OPENAI_API_OPERATIONS,
});
