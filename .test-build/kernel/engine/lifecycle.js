import { defineService } from './services.js';
export const LIFECYCLE = defineService('lifecycle');
//# sourceMappingURL=lifecycle.js.map