import type { GuardrailCheckDefinition } from '../check-kind.js';
import regex from './regex.js';
import contains from './contains.js';
import { characterCount, wordCount } from './counts.js';
import { jsonParse, jsonSchema } from './json.js';
import pii from './pii.js';
import modelAllowList from './model-allow-list.js';
import webhook from './webhook.js';

/** The guardrail checks that ship with the gateway; plugins add more (kind: guardrail-check). */
export const BUILTIN_CHECKS: GuardrailCheckDefinition[] = [regex, contains, wordCount, characterCount, jsonParse, jsonSchema, pii, modelAllowList, webhook];
