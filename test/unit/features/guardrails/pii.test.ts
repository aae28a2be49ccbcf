import { describe, expect, it } from 'vitest';
import { findPii, ibanValid, luhnValid, PII_CATEGORIES } from '../../../../src/features/guardrails/pii.js';

const all = new Set(PII_CATEGORIES);
const found = (text: string) => findPii(text, all).map((m) => `${m.category}:${text.slice(m.start, m.end)}`);

describe('PII detection', () => {
  it('checks card numbers with Luhn and IBANs with mod 97', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(ibanValid('DE89 3704 0044 0532 0130 00')).toBe(true);
    expect(ibanValid('GB82WEST12345698765432')).toBe(true);
    expect(ibanValid('GB82WEST12345698765433')).toBe(false);
  });

  it('finds emails, phones, SSNs, cards, IP addresses and IBANs', () => {
    expect(found('mail john.doe+x@mail.example.com now')).toEqual(['email:john.doe+x@mail.example.com']);
    expect(found('call +1 415 555 2671')).toEqual(['phone:+1 415 555 2671']);
    expect(found('or (415) 555-2671 or 415-555-2671')).toEqual(['phone:(415) 555-2671', 'phone:415-555-2671']);
    expect(found('ssn 123-45-6789')).toEqual(['ssn:123-45-6789']);
    expect(found('card 4111 1111 1111 1111 ok')).toEqual(['credit_card:4111 1111 1111 1111']);
    expect(found('ip 192.168.1.20 and 2001:db8::ff00:42:8329')).toEqual(['ip_address:192.168.1.20', 'ip_address:2001:db8::ff00:42:8329']);
    expect(found('pay to DE89 3704 0044 0532 0130 00 today')).toEqual(['iban:DE89 3704 0044 0532 0130 00']);
  });

  it('leaves ordinary numbers, times, versions and failed checksums alone', () => {
    expect(found('In 2024 we sold 1234567 units at 12:30:45, version 1.2.3, build 999.1.1.1.1')).toEqual([]);
    expect(found('card 4111 1111 1111 1112')).toEqual([]);
    expect(found('ssn 000-12-3456')).toEqual([]);
  });

  it('detects only the categories asked for', () => {
    expect(findPii('a@b.co 123-45-6789', new Set(['ssn'])).map((m) => m.category)).toEqual(['ssn']);
  });
});
