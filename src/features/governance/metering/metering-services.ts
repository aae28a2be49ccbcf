import { defineService } from '../../../kernel/engine/services.js';
import { defineSlot } from '../../../kernel/engine/slot.js';
import type { UsageLedger } from '../governance-types.js';
import type { Meter, MeterDeps } from './meter.js';

/** What the meter stage and the usage routes share (built by the metering capability). */
export const METER_DEPS = defineService<MeterDeps>('meter-deps');
/** The usage ledger (rows written in batches, flushed at shutdown). */
export const USAGE_LEDGER = defineService<UsageLedger>('usage-ledger');
/** The meter of a request made with a gateway key (set by the meter stage). */
export const METER = defineSlot<Meter>('meter', 'a meter');
