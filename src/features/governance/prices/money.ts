/**
 * Money as integers. Prices are read from decimal strings into picodollars (10^-12 USD: a price
 * of $0.075 per million tokens is 75,000 pico per token, whole); costs are summed exactly in
 * picodollars (whole numbers: in a Number while every term and the sum are safe integers, else in
 * BigInt) and charged in whole microdollars (10^-6 USD), the unit budgets and the ledger keep. No
 * fraction of a dollar is ever held in a float.
 */

/** Picodollars in one microdollar. */
const PICO_PER_MICRO = 1_000_000n;
const PICO_PER_MICRO_NUMBER = Number(PICO_PER_MICRO);
const DECIMAL = /^(0|[1-9][0-9]{0,2})(?:\.([0-9]{1,12}))?$/;

/** `"0.0000025"` (US dollars) → 2_500_000 picodollars; undefined for anything else. */
export function picoFromDecimal(text: string): bigint | undefined {
  const m = DECIMAL.exec(text);
  if (!m) return undefined;
  const fraction = (m[2] ?? '').padEnd(12, '0');
  return BigInt(m[1]!) * 1_000_000_000_000n + BigInt(fraction);
}

/** A share written as a decimal string (`"0.5"`) → parts per million (500_000). */
export function ppmFromDecimal(text: string): bigint | undefined {
  const m = /^(0|1)(?:\.([0-9]{1,6}))?$/.exec(text);
  if (!m) return undefined;
  const ppm = BigInt(m[1]!) * 1_000_000n + BigInt((m[2] ?? '').padEnd(6, '0'));
  return ppm <= 1_000_000n ? ppm : undefined;
}

/** Picodollars charged as whole microdollars, rounded up: a request that costs anything costs at least 1 µ$, and no sum of charges falls short of the sum of costs. */
export function microsFromPico(pico: bigint): number {
  if (pico <= 0n) return 0;
  return Number((pico + PICO_PER_MICRO - 1n) / PICO_PER_MICRO);
}

/** microsFromPico for picodollars held in a Number that is a safe integer (exact: the remainder is checked, not the float quotient trusted). */
export function microsFromSafePico(pico: number): number {
  if (pico <= 0) return 0;
  let whole = Math.floor(pico / PICO_PER_MICRO_NUMBER);
  let rest = pico - whole * PICO_PER_MICRO_NUMBER;
  if (rest < 0) {
    whole--;
    rest += PICO_PER_MICRO_NUMBER;
  } else if (rest >= PICO_PER_MICRO_NUMBER) {
    whole++;
    rest -= PICO_PER_MICRO_NUMBER;
  }
  return rest > 0 ? whole + 1 : whole;
}

/** Microdollars as the decimal dollar string answers carry (`x-gateway-cost: 0.001234`). */
export function usdFromMicros(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(Math.trunc(micros));
  const whole = Math.floor(abs / 1_000_000);
  const fraction = String(abs % 1_000_000).padStart(6, '0');
  return `${sign}${whole}.${fraction}`;
}
