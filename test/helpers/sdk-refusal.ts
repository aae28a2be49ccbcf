import type OpenAI from 'openai';

/** The error an `openai` SDK call was refused with; a call that was served fails the test. */
export function refusal(call: PromiseLike<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  return Promise.resolve(call).then(
    () => {
      throw new Error('the request was served');
    },
    (err: unknown) => err as InstanceType<typeof OpenAI.APIError>,
  );
}
