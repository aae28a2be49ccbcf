import { describe, expect, it } from 'vitest';
import { toGeminiSchema } from '../../../../../src/features/models/providers/gemini/json-schema.js';

describe('JSON Schema -> Gemini schema', () => {
  it('drops what Gemini rejects and keeps type, description, enum, required, items, properties', () => {
    expect(
      toGeminiSchema({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: 'urn:x',
        type: 'object',
        title: 'Order',
        description: 'An order',
        additionalProperties: false,
        properties: {
          sku: { type: 'string', pattern: '^[A-Z]+$', minLength: 3, examples: ['ABC'], default: 'AAA' },
          size: { type: 'string', enum: ['S', 'M', 'L'] },
          qty: { type: 'integer', minimum: 1, maximum: 10, format: 'int32', multipleOf: 1 },
          price: { type: 'number', format: 'decimal', exclusiveMinimum: 0 },
          tags: { type: 'array', items: { type: 'string', format: 'uuid' }, minItems: 1, maxItems: 5, uniqueItems: true },
        },
        required: ['sku', 'qty', 'missing'],
      }),
    ).toEqual({
      type: 'object',
      title: 'Order',
      description: 'An order',
      properties: {
        sku: { type: 'string' },
        size: { type: 'string', enum: ['S', 'M', 'L'] },
        qty: { type: 'integer', minimum: 1, maximum: 10, format: 'int32' },
        price: { type: 'number' },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 5 },
      },
      required: ['sku', 'qty'],
    });
  });

  it('turns unions with null into nullable, other unions into anyOf', () => {
    expect(toGeminiSchema({ type: ['integer', 'null'], description: 'n' })).toEqual({ type: 'integer', nullable: true, description: 'n' });
    expect(toGeminiSchema({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toEqual({ type: 'string', nullable: true });
    expect(toGeminiSchema({ oneOf: [{ type: 'string' }, { type: 'number' }] })).toEqual({ anyOf: [{ type: 'string' }, { type: 'number' }] });
    expect(toGeminiSchema({ type: ['string', 'number', 'null'] })).toEqual({ nullable: true, anyOf: [{ type: 'string' }, { type: 'number' }] });
    expect(toGeminiSchema({ enum: ['a', 'b', null] })).toEqual({ type: 'string', enum: ['a', 'b'], nullable: true });
    expect(toGeminiSchema({ const: 'fixed' })).toEqual({ type: 'string', enum: ['fixed'] });
    expect(toGeminiSchema({ type: 'integer', enum: [1, 2, 3] })).toEqual({ type: 'integer' });
  });

  it('inlines $ref into definitions and $defs, merges allOf, and stops at reference cycles', () => {
    const schema = {
      type: 'object',
      properties: {
        home: { $ref: '#/$defs/Address', description: 'Where they live' },
        work: { allOf: [{ $ref: '#/definitions/Named' }, { properties: { floor: { type: 'integer' } } }] },
        boss: { $ref: '#/$defs/Person' },
      },
      $defs: {
        Address: { type: 'object', properties: { street: { type: 'string' } }, required: ['street'] },
        Person: { type: 'object', properties: { name: { type: 'string' }, manager: { $ref: '#/$defs/Person' } } },
      },
      definitions: { Named: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    };
    expect(toGeminiSchema(schema)).toEqual({
      type: 'object',
      properties: {
        home: { type: 'object', properties: { street: { type: 'string' } }, required: ['street'], description: 'Where they live' },
        work: { type: 'object', properties: { name: { type: 'string' }, floor: { type: 'integer' } }, required: ['name'] },
        boss: { type: 'object', properties: { name: { type: 'string' }, manager: { type: 'object' } } },
      },
    });
  });

  it('gives arrays an item schema and leaves empty schemas out', () => {
    expect(toGeminiSchema({ type: 'array' })).toEqual({ type: 'array', items: { type: 'string' } });
    expect(toGeminiSchema({ items: { type: 'number' } })).toEqual({ type: 'array', items: { type: 'number' } });
    expect(toGeminiSchema({})).toBeUndefined();
    expect(toGeminiSchema(true)).toBeUndefined();
    expect(toGeminiSchema({ $ref: '#/nowhere' })).toEqual({ type: 'object' });
  });
});
