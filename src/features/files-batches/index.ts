/**
 * The public entry of the files-batches feature: what the stages may use (the checks of a file
 * upload). Everything else in this folder is its own business (eslint/layers.js refuses imports
 * of it from another feature or a stage).
 */
export { fileUploadRules, UPLOAD_FILE_LIMIT, uploadSpoolPath } from './file-upload.js';
export { filesBatchesFeature } from './files-batches-feature.js';
