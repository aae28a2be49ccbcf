/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/pipeline.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * A stage: its name, or a one-key object mapping the name to its config, optionally with `when:` beside it (the stage then runs only for matching requests).
 */
export type StageEntry =
  | string
  | {
      /**
       * A query in the routing config's operators ($eq $ne $in $nin $gt $gte $lt $lte $regex $and $or) over route, method, path, params.<key>, metadata.<key>, headers.<name> and identity.<field>.
       */
      when?: {
        [k: string]: unknown;
      };
      /**
       * The stage's config (an object; empty or null for its defaults).
       */
      [k: string]: Record<string, unknown> | null | undefined;
    };

/**
 * A pipeline: the ordered stages a set of routes runs through. The shipped files live in pipelines/; pipelines.dir adds the user's own. A file gives either the whole list (`stages`) or `extends` another pipeline with edits (`insert`, `remove`, `configure`).
 */
export interface PipelineFile {
  /**
   * The pipeline's name. A user file with the name of a shipped pipeline replaces it.
   */
  name: string;
  /**
   * What the pipeline does, for people reading it.
   */
  description?: string;
  /**
   * Route patterns this pipeline serves: "METHOD /path" (METHOD may be *, path parameters as {name}, a final * for the rest of the path), or "*" for every route. When several pipelines claim a route the most specific pattern wins; a tie stops start-up. An extending pipeline inherits its base's routes unless it gives its own.
   */
  routes?: string[];
  /**
   * Stages in order (not with extends).
   *
   * @minItems 1
   */
  stages?: [StageEntry, ...StageEntry[]];
  /**
   * The name of the pipeline this one starts from (its stages, routes and description), edited by insert, remove and configure. A file extending the pipeline whose name it has itself extends the shipped one of that name (and replaces it).
   */
  extends?: string;
  /**
   * Stages to add, each group before or after a stage of the base pipeline.
   */
  insert?: StageInsertion[];
  /**
   * Names of stages of the base pipeline to leave out.
   */
  remove?: string[];
  /**
   * Config for stages of the pipeline, by stage name; its keys replace the same keys of the stage's config.
   */
  configure?: {
    [k: string]: {
      [k: string]: unknown;
    };
  };
}
export interface StageInsertion {
  /**
   * Insert before this stage.
   */
  before?: string;
  /**
   * Insert after this stage.
   */
  after?: string;
  /**
   * @minItems 1
   */
  stages: [StageEntry, ...StageEntry[]];
}
