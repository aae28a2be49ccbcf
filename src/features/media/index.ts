/**
 * The public entry of the media feature: what the stages may use (the checks of an image edit
 * and an audio upload). Everything else in this folder is its own business (eslint/layers.js
 * refuses imports of it from another feature or a stage).
 */
export { IMAGE_LIMIT, imageEditRules } from './image-edit-upload.js';
export { AUDIO_FILE_LIMIT, audioUploadRules } from './audio-upload.js';
