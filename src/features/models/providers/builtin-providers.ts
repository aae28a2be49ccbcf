import { join } from 'node:path';
import type { ProviderDefinition } from './provider.js';
import { describeErrors, validatorFor } from '../../../kernel/config/schema-validator.js';
import { ROOT_DIR } from '../../../kernel/paths.js';
import { parsedProviderData } from './provider-data-files.js';
import { dataProblem, providerFromData, type ProviderCode, type ProviderData } from './openai-compatible/provider-data.js';
import { declareFields } from './provider-registry.js';
import { togetherFiles } from './together-ai/files.js';
import { togetherFineTuning } from './together-ai/fine-tuning.js';
import { togetherImages } from './together-ai/images.js';
import { fireworksFineTuning } from './fireworks-ai/fine-tuning.js';
import { mistralFiles } from './mistral-ai/files.js';
import { mistralFineTuning } from './mistral-ai/fine-tuning.js';
import { mistralModerations } from './mistral-ai/moderations.js';
import { voyageCode } from './voyage/rerank.js';
import anthropic from './anthropic/index.js';
import bedrock from './bedrock/index.js';
import cohere from './cohere/index.js';
import google from './google/index.js';
import vertexAi from './vertex-ai/index.js';
import azureOpenai from './azure-openai/index.js';

/** The folder of provider data files (one OpenAI-compatible provider per `<id>.yaml`). */
export const PROVIDER_DATA_DIR = join(ROOT_DIR, 'providers');

/** Every data file of `dir`, read and checked; a bad file stops start-up, naming the file and the field. */
export function readProviderData(dir = PROVIDER_DATA_DIR): ProviderData[] {
  const validate = validatorFor('providers/provider-data.schema.json');
  const out: ProviderData[] = [];
  for (const { name, file, data } of parsedProviderData(dir)) {
    if (!validate(data)) throw new Error(`${file}: ${describeErrors(validate.errors).join('; ')}`);
    const problem = dataProblem(data as ProviderData, name);
    if (problem) throw new Error(`${file}: ${problem}`);
    out.push(data as ProviderData);
  }
  return out;
}

/** The translations kept in code, by the name a data file gives as `code`. */
const PROVIDER_CODE: Record<NonNullable<ProviderData['code']>, ProviderCode> = {
  'together-ai': { overrides: { ...togetherFiles, ...togetherFineTuning, ...togetherImages } },
  'fireworks-ai': { overrides: fireworksFineTuning },
  'mistral-ai': { overrides: { ...mistralFiles, ...mistralFineTuning }, ...mistralModerations },
  voyage: voyageCode,
};

/** Every data file of providers/ (read once, at start-up). */
export const PROVIDER_DATA: readonly ProviderData[] = readProviderData();

/**
 * Every provider that ships with the gateway: the OpenAI-compatible ones from their data files
 * (providers/<id>.yaml), then the translated ones. Adding a compatible provider: add its data
 * file; a translated one: add its folder and list it here.
 */
export const BUILTIN_PROVIDERS: ProviderDefinition[] = [
  ...PROVIDER_DATA.map((data) => providerFromData(data, data.code ? PROVIDER_CODE[data.code] : undefined)),
  anthropic,
  bedrock,
  cohere,
  google,
  vertexAi,
  azureOpenai,
];

// The settings each built-in declares are known from start-up on (a registry declares them again, and a plugin's).
for (const def of BUILTIN_PROVIDERS) declareFields(def);
