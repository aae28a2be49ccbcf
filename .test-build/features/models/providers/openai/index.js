import { openAICompatible } from '../openai-compatible/openai-compatible.js';
/** OpenAI: OpenAI-compatible API at https://api.openai.com/v1. */
export default openAICompatible({
    name: 'openai',
    displayName: 'OpenAI',
    defaultBaseUrl: 'https://api.openai.com/v1',
    requiresKey: true,
    operations: ['chat.completions', 'completions', 'embeddings', 'images.generations', 'images.edits', 'audio.speech', 'audio.transcriptions', 'audio.translations', 'files.create', 'files.list', 'files.retrieve', 'files.delete', 'files.content', 'batches.create', 'batches.list', 'batches.retrieve', 'batches.cancel', 'fine_tuning.jobs.create', 'fine_tuning.jobs.list', 'fine_tuning.jobs.retrieve', 'fine_tuning.jobs.cancel', 'fine_tuning.jobs.events', 'models.list', 'responses.create', 'responses.retrieve', 'responses.delete', 'responses.cancel', 'responses.input_items'],
});
//# sourceMappingURL=index.js.map