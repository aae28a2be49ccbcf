import { describe, expect, it } from 'vitest';
import { compileQuery, QueryError } from '../../../../../src/features/models/routing/conditions.js';

const input = (metadata: Record<string, unknown>, params: Record<string, unknown> = {}) => ({ metadata, params });

describe('conditional routing queries', () => {
  it('compares with $eq and plain values', () => {
    expect(compileQuery({ 'metadata.tier': { $eq: 'pro' } }, 'q', 'caller')(input({ tier: 'pro' }))).toBe(true);
    expect(compileQuery({ 'metadata.tier': { $eq: 'pro' } }, 'q', 'caller')(input({ tier: 'free' }))).toBe(false);
    expect(compileQuery({ 'metadata.tier': 'pro' }, 'q', 'caller')(input({ tier: 'pro' }))).toBe(true);
    expect(compileQuery({ 'metadata.tier': 'pro' }, 'q', 'caller')(input({}))).toBe(false);
  });

  it('supports $ne, $in, $nin (missing values count as not in the list)', () => {
    expect(compileQuery({ 'metadata.tier': { $ne: 'pro' } }, 'q', 'caller')(input({}))).toBe(true);
    expect(compileQuery({ 'params.model': { $in: ['a', 'b'] } }, 'q', 'caller')(input({}, { model: 'b' }))).toBe(true);
    expect(compileQuery({ 'params.model': { $in: ['a', 'b'] } }, 'q', 'caller')(input({}, { model: 'c' }))).toBe(false);
    expect(compileQuery({ 'params.model': { $nin: ['a'] } }, 'q', 'caller')(input({}, {}))).toBe(true);
    expect(compileQuery({ 'params.model': { $nin: ['a'] } }, 'q', 'caller')(input({}, { model: 'a' }))).toBe(false);
  });

  it('orders numbers and strings with $gt $gte $lt $lte, never across types', () => {
    const q = compileQuery({ 'params.max_tokens': { $gt: 100, $lte: 1000 } }, 'q', 'caller');
    expect(q(input({}, { max_tokens: 500 }))).toBe(true);
    expect(q(input({}, { max_tokens: 100 }))).toBe(false);
    expect(q(input({}, { max_tokens: 1001 }))).toBe(false);
    expect(q(input({}, { max_tokens: '500' }))).toBe(false);
    expect(compileQuery({ 'metadata.v': { $lt: 'm' } }, 'q', 'caller')(input({ v: 'a' }))).toBe(true);
    expect(compileQuery({ 'metadata.v': { $gte: 2 } }, 'q', 'caller')(input({ v: 2 }))).toBe(true);
  });

  it('matches $regex on strings only', () => {
    const q = compileQuery({ 'params.model': { $regex: '^gpt-4' } }, 'q', 'caller');
    expect(q(input({}, { model: 'gpt-4o' }))).toBe(true);
    expect(q(input({}, { model: 'o1' }))).toBe(false);
    expect(q(input({}, { model: 4 }))).toBe(false);
  });

  it('combines with $and and $or, and reads nested paths', () => {
    const q = compileQuery({ $or: [{ 'metadata.tier': 'pro' }, { $and: [{ 'metadata.beta': true }, { 'params.stream_options.include_usage': true }] }] }, 'q', 'caller');
    expect(q(input({ tier: 'pro' }))).toBe(true);
    expect(q(input({ beta: true }, { stream_options: { include_usage: true } }))).toBe(true);
    expect(q(input({ beta: true }, { stream_options: { include_usage: false } }))).toBe(false);
  });

  it('requires every field of one object to hold', () => {
    const q = compileQuery({ 'metadata.tier': 'pro', 'params.model': 'gpt-4o' }, 'q', 'caller');
    expect(q(input({ tier: 'pro' }, { model: 'gpt-4o' }))).toBe(true);
    expect(q(input({ tier: 'pro' }, { model: 'x' }))).toBe(false);
  });

  it('rejects unknown operators, bad fields and bad operands with the key path', () => {
    expect(() => compileQuery({ 'metadata.tier': { $like: 'x' } }, 'strategy.conditions[0].query', 'caller')).toThrow(
      /strategy\.conditions\[0\]\.query\.metadata\.tier\.\$like: unknown operator/,
    );
    expect(() => compileQuery({ tier: 'x' }, 'q', 'caller')).toThrow(QueryError);
    expect(() => compileQuery({ 'params.model': { $in: 'x' } }, 'q', 'caller')).toThrow(/\$in takes an array/);
    expect(() => compileQuery({ 'params.model': { $regex: '(' } }, 'q', 'caller')).toThrow(/not a valid regular expression/);
    expect(() => compileQuery({ $or: [] }, 'q', 'caller')).toThrow(/non-empty array/);
    expect(() => compileQuery({ $nor: [] }, 'q', 'caller')).toThrow(/only \$and and \$or/);
  });
});
