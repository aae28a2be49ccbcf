import type { WebhookCheck } from '../../../generated/checks/webhook.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { ExtensionConfigError } from '../../../kernel/engine/extension.js';
import { defineCheck } from '../check-kind.js';
import { callWebhook } from '../webhook.js';
import { need } from './need.js';

/** Asks an HTTP service for a verdict (fails closed: no answer in time, an error status or another shape fails). */
export default defineCheck<WebhookCheck>({
  name: 'webhook',
  description: 'Asks an HTTP service for a verdict on the text.',
  schema: schemaDocument('checks/webhook.schema.json'),
  create(check, { path, upstream }) {
    const problems: string[] = [];
    if (!need(check, 'url', 'webhook', 'the address to ask', path, problems)) throw new ExtensionConfigError(problems);
    if (!/^https?:\/\//i.test(check.url!)) throw new ExtensionConfigError([`${path}.url: must be an http(s) URL`]);
    const url = check.url!;
    const headers = check.headers ?? {};
    const timeout = check.timeout ?? 5000;
    return (input) => callWebhook(upstream(), url, headers, timeout, input);
  },
});
