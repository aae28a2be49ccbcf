/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/pipeline.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * A pipeline: the ordered stages a set of routes runs through. Files live in pipelines/*.yaml.
 */
export interface PipelineFile {
  /**
   * The pipeline's name; `default` serves every route no other pipeline names.
   */
  name: string;
  description?: string;
  /**
   * Routes this pipeline serves, as "METHOD /path" (path parameters as {name}), or "*" for every route no other pipeline names.
   */
  routes: string[];
  /**
   * Stages in order. Each item is a stage name, or a one-key object mapping the name to its config.
   *
   * @minItems 1
   */
  stages: [
    (
      | string
      | {
          [k: string]: unknown;
        }
    ),
    ...(
      | string
      | {
          [k: string]: unknown;
        }
    )[]
  ];
}
