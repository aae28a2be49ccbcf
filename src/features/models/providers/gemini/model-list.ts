/** Google model resources ("models/x", "publishers/google/models/x") -> OpenAI's model list. */
type Json = Record<string, unknown>;

export function modelList(models: unknown, ownedBy: string, hasMore: boolean): Json {
  const data = (Array.isArray(models) ? models : [])
    .map((m: unknown) => (m as Json | null)?.name)
    .filter((name): name is string => typeof name === 'string')
    .map((name) => ({ id: name.replace(/^(publishers\/[^/]+\/)?models\//, ''), object: 'model', created: 0, owned_by: ownedBy }));
  return { object: 'list', data, has_more: hasMore };
}
