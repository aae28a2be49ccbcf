import { openAICompatible } from '../openai-compatible/openai-compatible.js';
/** Perplexity: OpenAI-compatible API at https://api.perplexity.ai. */
export default openAICompatible({
    name: 'perplexity-ai',
    displayName: 'Perplexity',
    defaultBaseUrl: 'https://api.perplexity.ai',
    requiresKey: true,
    operations: ['chat.completions'],
});
//# sourceMappingURL=index.js.map