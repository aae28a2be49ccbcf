import { openAICompatible } from '../openai-compatible/openai-compatible.js';
/** DeepSeek: OpenAI-compatible API at https://api.deepseek.com. */
export default openAICompatible({
    name: 'deepseek',
    displayName: 'DeepSeek',
    defaultBaseUrl: 'https://api.deepseek.com',
    reasoning: { takesReasoningBack: true },
    requiresKey: true,
    operations: ['chat.completions', 'models.list'],
});
//# sourceMappingURL=index.js.map