/** Google model resources ("models/x", "publishers/google/models/x") -> OpenAI's model list. */
type Json = Record<string, any>;

export function modelList(models: unknown, ownedBy: string, hasMore: boolean): Json {
  const data = (Array.isArray(models) ? models : [])
    .filter((m: Json) => typeof m?.name === 'string')
    .map((m: Json) => ({ id: m.name.replace(/^(publishers\/[^/]+\/)?models\//, ''), object: 'model', created: 0, owned_by: ownedBy }));
  return { object: 'list', data, has_more: hasMore };
}
