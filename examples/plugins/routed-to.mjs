// An example stage written with the public plugin API: `routed-to` adds a header naming the
// provider that each attempt went to (`x-routed-to: openai`). It reads the TARGET slot, which the
// built-in `fallback` stage provides, so it declares `requires: [TARGET]`: the gateway then
// refuses, at start-up and in --check, a pipeline that puts it before fallback.
//
// Use it in a pipeline of your own (pipelines.dir), e.g. chat.yaml:
//   name: chat
//   extends: chat
//   insert:
//     - after: fallback
//       stages:
//         - routed-to: { header: x-routed-to }
import { defineStage, TARGET } from 'pipeline-gateway/plugin';

export default defineStage({
  name: 'routed-to',
  description: 'Adds a header naming the provider each attempt went to.',
  schema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      header: {
        description: 'Header name; x-gateway-* names are reserved for the gateway.',
        type: 'string',
        pattern: '^(?![Xx]-[Gg][Aa][Tt][Ee][Ww][Aa][Yy]-)[A-Za-z0-9-]+$',
        default: 'x-routed-to',
      },
    },
  },
  requires: [TARGET],
  create(config) {
    const header = config.header.toLowerCase();
    return async (ctx, next) => {
      ctx.responseHeaders[header] = ctx.get(TARGET).provider;
      await next();
    };
  },
});
