import { openAICompatible } from '../openai-compatible/openai-compatible.js';
/** Ollama: OpenAI-compatible API at http://127.0.0.1:11434/v1. */
export default openAICompatible({
    name: 'ollama',
    displayName: 'Ollama',
    defaultBaseUrl: 'http://127.0.0.1:11434/v1',
    reasoning: { renamed: true },
    requiresKey: false,
    operations: ['chat.completions', 'completions', 'embeddings', 'models.list'],
});
//# sourceMappingURL=index.js.map