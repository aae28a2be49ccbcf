/** Every operation the provider-routed endpoints offer; providers declare which they serve. */
export const OPERATIONS = [
  'chat.completions',
  'completions',
  'embeddings',
  'images.generations',
  'images.edits',
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
  'fine_tuning.jobs.create',
  'fine_tuning.jobs.list',
  'fine_tuning.jobs.retrieve',
  'fine_tuning.jobs.cancel',
  'fine_tuning.jobs.events',
  'models.list',
  'responses.create',
  'responses.retrieve',
  'responses.delete',
  'responses.cancel',
  'responses.input_items',
  'messages.create',
  'messages.count_tokens',
  'rerank',
  'moderations',
] as const;

export type Operation = (typeof OPERATIONS)[number];

/** The operations of one family, as providers list them. */
export const AUDIO_OPERATIONS = ['audio.speech', 'audio.transcriptions', 'audio.translations'] as const satisfies readonly Operation[];
export const FILES_OPERATIONS = ['files.create', 'files.list', 'files.retrieve', 'files.delete', 'files.content'] as const satisfies readonly Operation[];
export const BATCHES_OPERATIONS = ['batches.create', 'batches.list', 'batches.retrieve', 'batches.cancel'] as const satisfies readonly Operation[];
export const FINE_TUNING_OPERATIONS = [
  'fine_tuning.jobs.create',
  'fine_tuning.jobs.list',
  'fine_tuning.jobs.retrieve',
  'fine_tuning.jobs.cancel',
  'fine_tuning.jobs.events',
] as const satisfies readonly Operation[];
export const RESPONSES_OPERATIONS = [
  'responses.create',
  'responses.retrieve',
  'responses.delete',
  'responses.cancel',
  'responses.input_items',
] as const satisfies readonly Operation[];

/** Everything OpenAI's own API serves (all but Anthropic's Messages API and rerank). */
export const OPENAI_API_OPERATIONS: Operation[] = OPERATIONS.filter((op) => !op.startsWith('messages.') && op !== 'rerank');
