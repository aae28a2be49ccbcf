import { defineService } from '../../kernel/engine/services.js';
export const FILES_BATCHES = defineService('files-batches');
//# sourceMappingURL=files-batches-service.js.map