import type { Capability } from '../../../kernel/capability.js';
import { getStore } from '../../../kernel/store/store-capability.js';
import { RESPONSES_MIGRATIONS } from './migrations.js';
import { RESPONSE_STORE, ResponseStore } from './response-store.js';
import responsesState from './responses-stage.js';
import responsesKept from './responses-kept-stage.js';
import { HELD_OBJECTS, HELD_OBJECTS_MIGRATIONS, HeldObjects } from '../routing/held-objects.js';

/**
 * The Responses API on every provider: the `responses-state` and `responses-kept` stages and the responses kept in
 * the gateway's store (its table is created by a migration at start-up).
 */
export const responsesCapability: Capability = {
  name: 'responses',
  async setup(services) {
    services.stages.register(responsesState);
    services.stages.register(responsesKept);
    const store = getStore(services);
    await store.migrate(RESPONSES_MIGRATIONS);
    services.provide(RESPONSE_STORE, new ResponseStore(store));
    await store.migrate(HELD_OBJECTS_MIGRATIONS);
    services.provide(HELD_OBJECTS, new HeldObjects(store));
  },
};
