// An example plugin that refuses requests: the `require-header` stage lets a request through only
// when it carries a configured header (with one of the listed values, when `values` is given),
// and otherwise answers with the contract's error body itself: `ctx.reject(status, { type, code,
// message, param })`. Nothing after the stage runs, so nothing is sent upstream.
//
// Use it in a pipeline of your own (pipelines.dir), e.g. pipelines/chat.yaml:
//   name: chat
//   extends: chat
//   insert:
//     - after: authenticate
//       stages:
//         - require-header: { header: x-team, values: [search, ads] }
//
// It reads only the stable plugin API of a stage: ctx.headers, ctx.route, ctx.reject and next.

export const kind = 'stage';

export const name = 'require-header';

export const description = 'Refuses requests without a configured header (or with a value not listed).';

export const schema = {
  type: 'object',
  additionalProperties: false,
  required: ['header'],
  properties: {
    header: { description: 'The header every request must carry (any case).', type: 'string', pattern: '^[A-Za-z0-9-]+$' },
    values: { description: 'Values it may have (any value when absent).', type: 'array', minItems: 1, items: { type: 'string' } },
    status: { description: 'Status of the refusal.', type: 'integer', enum: [400, 401, 403], default: 403 },
  },
};

export function create(config) {
  const header = config.header.toLowerCase();
  const allowed = config.values ? new Set(config.values) : undefined;
  const status = config.status ?? 403;
  return async (ctx, next) => {
    const value = ctx.headers[header];
    const given = Array.isArray(value) ? value[0] : value;
    if (given === undefined || given === '' || (allowed && !allowed.has(given))) {
      ctx.reject(status, {
        message: given === undefined || given === '' ? `${ctx.route} needs the ${config.header} header.` : `${config.header}: ${given} may not use ${ctx.route}.`,
        param: config.header,
      });
    }
    await next();
  };
}
