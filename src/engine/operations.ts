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
] as const;

export type Operation = (typeof OPERATIONS)[number];
