import type { Capability } from '../../kernel/capability.js';
import adminConfig from './admin-config-stage.js';
import consoleUi from './console-ui-stage.js';

/** The admin console (ui.*): the stage serving its browser app at /ui, and the admin API's config read it shows. */
export const consoleCapability: Capability = {
  name: 'console',
  setup(services) {
    services.stages.register(consoleUi);
    services.stages.register(adminConfig);
  },
};
