/**
 * Azure OpenAI: OpenAI's API on a customer's resource,
 * https://{azure_resource_name}.openai.azure.com/openai/deployments/{azure_deployment_id}/{path}?api-version={azure_api_version}
 * (files, batches, fine-tuning and models live at /openai/{path}, without a deployment).
 * `providers.azure-openai.baseUrl` stands for https://{resource}.openai.azure.com. The key
 * travels in `api-key`; a Microsoft Entra ID token (a JWT) in Authorization: Bearer.
 */
import { OPENAI_API_OPERATIONS, type Operation } from '../../../../contract/operations.js';
import { badRequest } from '../../../../contract/errors/gateway-error.js';
import { openAICompatible } from '../openai-compatible/openai-compatible.js';
import type { ProviderCall } from '../provider.js';
import { mapAzureError } from './errors.js';
import { AZURE_HEADERS } from '../shared/upstream-headers.js';

export const AZURE_DEFAULT_API_VERSION = '2024-10-21';
/** The Responses API needs a newer api-version than the default one. */
export const AZURE_RESPONSES_API_VERSION = '2025-04-01-preview';

/** Operations addressed to a deployment (a model); the others are resource-wide. */
const DEPLOYMENT_OPERATIONS = new Set<Operation>([
  'chat.completions',
  'completions',
  'embeddings',
  'images.generations',
  'images.edits',
  'audio.speech',
  'audio.transcriptions',
  'audio.translations',
]);

const RESOURCE_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/i;
const JWT = /^eyJ[\w-]*\.[\w-]+\.[\w-]*$/;

function option(call: ProviderCall, field: string): string | undefined {
  const value = call.target.options?.[field];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function resourceHost(call: ProviderCall): string {
  const resource = option(call, 'azure_resource_name');
  if (!resource) {
    throw badRequest('Azure OpenAI needs the resource name: send x-gateway-azure-resource-name (or azure_resource_name in the target).', 'x-gateway-azure-resource-name');
  }
  if (!RESOURCE_NAME.test(resource)) {
    throw badRequest(`x-gateway-azure-resource-name "${resource}" is not an Azure resource name (letters, digits and hyphens).`, 'x-gateway-azure-resource-name');
  }
  return `https://${resource}.openai.azure.com`;
}

function azureUrl(base: string, path: string, call: ProviderCall): string {
  let prefix = '/openai';
  if (DEPLOYMENT_OPERATIONS.has(call.operation)) {
    const deployment = option(call, 'azure_deployment_id');
    if (!deployment) {
      throw badRequest('Azure OpenAI needs the deployment: send x-gateway-azure-deployment-id (or azure_deployment_id in the target).', 'x-gateway-azure-deployment-id');
    }
    prefix = `/openai/deployments/${encodeURIComponent(deployment)}`;
  }
  const fallbackVersion = call.operation.startsWith('responses.') ? AZURE_RESPONSES_API_VERSION : AZURE_DEFAULT_API_VERSION;
  const query = new URLSearchParams({ 'api-version': option(call, 'azure_api_version') ?? fallbackVersion });
  for (const [key, value] of call.query) if (key !== 'api-version') query.append(key, value);
  return `${base}${prefix}${path}?${query}`;
}

export default openAICompatible({
  name: 'azure-openai',
  displayName: 'Azure OpenAI',
  defaultBaseUrl: 'https://{azure_resource_name}.openai.azure.com',
  baseUrlFor: resourceHost,
  hosts: /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?\.openai\.azure\.com$/,
  url: azureUrl,
  authHeaders: (key): Record<string, string> => (!key ? {} : JWT.test(key) ? { authorization: `Bearer ${key}` } : { 'api-key': key }),
  passHeaders: AZURE_HEADERS,
  requiresKey: true,
  settingFields: ['azure_resource_name', 'azure_deployment_id', 'azure_api_version'],
  fields: [
    {
      name: 'azure_resource_name',
      host: true,
      pattern: /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?$/,
      what: 'an Azure resource name (letters, digits and inner hyphens, at most 64 characters)',
    },
    {
      name: 'azure_deployment_id',
      pattern: /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62}[A-Za-z0-9_])?$/,
      what: "an Azure deployment name (letters, digits, '.', '_' and '-', at most 64 characters)",
    },
    {
      name: 'azure_api_version',
      pattern: /^(?:\d{4}-\d{2}-\d{2}(?:-preview)?|v1|latest|preview)$/,
      what: 'an Azure OpenAI API version such as 2024-10-21 or 2025-01-01-preview',
    },
  ],
  operations: OPENAI_API_OPERATIONS,
  mapError: mapAzureError,
});
