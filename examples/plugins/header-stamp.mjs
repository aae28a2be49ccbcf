// An example plugin: the `header-stamp` stage adds one configured header to every answer of
// the routes its pipeline serves (successes and errors alike), e.g. to tell which gateway
// deployment answered.
//
// A plugin is a plain ES module listed under `plugins:` in the gateway config. It exports the
// stage's name, the JSON Schema of its config and a factory. The gateway checks each use of the
// stage in pipelines/*.yaml against `schema` when it compiles the pipelines, at start-up: a
// config that does not match stops the gateway with a line naming the file and the key.
//
// Use it in a pipeline:
//   stages:
//     - normalize-error
//     - header-stamp: { header: x-served-by, value: gateway-eu-1 }
//     - ...

export const name = 'header-stamp';

export const description = 'Adds a configured header to every answer.';

export const schema = {
  type: 'object',
  additionalProperties: false,
  required: ['header', 'value'],
  properties: {
    header: {
      description: 'Header name; x-gateway-* names are reserved for the gateway.',
      type: 'string',
      pattern: '^(?![Xx]-[Gg][Aa][Tt][Ee][Ww][Aa][Yy]-)[A-Za-z0-9-]+$',
    },
    value: {
      description: 'Header value (printable ASCII).',
      type: 'string',
      minLength: 1,
      maxLength: 256,
      pattern: '^[\\x20-\\x7e]*$',
    },
  },
};

/**
 * Called once per pipeline that uses the stage, with its validated config. Returns the
 * middleware: `ctx` is the request's context, `next` runs the rest of the pipeline.
 */
export function create(config) {
  const header = config.header.toLowerCase();
  const value = config.value;
  return async (ctx, next) => {
    ctx.responseHeaders[header] = value;
    await next();
  };
}
