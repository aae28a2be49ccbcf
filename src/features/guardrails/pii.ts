import { isIPv6 } from 'node:net';

export const PII_CATEGORIES = ['email', 'phone', 'ssn', 'credit_card', 'ip_address', 'iban'] as const;
export type PiiCategory = (typeof PII_CATEGORIES)[number];

export interface PiiMatch {
  category: PiiCategory;
  start: number;
  end: number;
}

/** Luhn checksum of a digit string (card numbers). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** ISO 13616 check: move the first four characters to the end, letters to numbers, mod 97 must be 1. */
export function ibanValid(text: string): boolean {
  const iban = text.replace(/ /g, '').toUpperCase();
  if (iban.length < 15 || iban.length > 34 || !/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban)) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const code = ch.charCodeAt(0);
    const value = code >= 65 ? String(code - 55) : ch;
    for (const digit of value) rest = (rest * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return rest === 1;
}

interface Detector {
  category: PiiCategory;
  pattern: RegExp;
  valid?: (match: string) => boolean;
}

const digitsOf = (s: string) => s.replace(/\D/g, '');

const DETECTORS: Detector[] = [
  { category: 'email', pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g },
  {
    category: 'iban',
    pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g,
    valid: ibanValid,
  },
  {
    category: 'credit_card',
    pattern: /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g,
    valid: (m) => {
      const d = digitsOf(m);
      return d.length >= 13 && d.length <= 19 && luhnValid(d);
    },
  },
  {
    category: 'ssn',
    pattern: /\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b/g,
  },
  {
    category: 'phone',
    // +CC groups, or (NNN) NNN-NNNN / NNN-NNN-NNNN / NNN.NNN.NNNN; 7 to 15 digits in all.
    pattern: /(?<![\w+])(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,4}){1,4}|\(\d{3}\) ?\d{3}[ .-]\d{4}|\d{3}[.-]\d{3}[.-]\d{4})(?![\w-])/g,
    valid: (m) => {
      const n = digitsOf(m).length;
      return n >= 7 && n <= 15;
    },
  },
  {
    category: 'ip_address',
    pattern: /(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\d.])/g,
  },
  {
    category: 'ip_address',
    pattern: /(?<![\w:])(?:[A-Fa-f0-9]{0,4}:){2,7}[A-Fa-f0-9]{0,4}(?![\w:])/g,
    valid: (m) => isIPv6(m) && /[A-Fa-f0-9]/.test(m),
  },
];

/**
 * Finds personal data in text: email addresses, phone numbers, US social security numbers,
 * card numbers (Luhn-checked), IPv4/IPv6 addresses and IBANs (mod-97 checked). Overlapping
 * finds keep the first detector's (more specific kinds are listed first).
 */
export function findPii(text: string, categories: ReadonlySet<PiiCategory>): PiiMatch[] {
  const found: PiiMatch[] = [];
  for (const detector of DETECTORS) {
    if (!categories.has(detector.category)) continue;
    detector.pattern.lastIndex = 0;
    for (const m of text.matchAll(detector.pattern)) {
      if (detector.valid && !detector.valid(m[0])) continue;
      const start = m.index!;
      const end = start + m[0].length;
      if (found.some((f) => start < f.end && end > f.start)) continue;
      found.push({ category: detector.category, start, end });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

export function piiMask(category: PiiCategory): string {
  return `[REDACTED_${category.toUpperCase()}]`;
}
