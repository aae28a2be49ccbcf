/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/images-generations.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */
export {};
//# sourceMappingURL=images-generations.js.map