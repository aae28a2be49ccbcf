// A 25 MB audio upload (POST /v1/audio/transcriptions, multipart; the largest the API takes)
// through the gateway: the form is read whole and checked before anything goes upstream (file
// type, 25 MB limit, every field whatever its place), the file part spooled to a temporary file
// as it arrives, then sent from there; the gateway's peak RSS should stay far below the size of
// the upload.
import { randomBytes } from 'node:crypto';
import { OPENAI_HEADERS } from '../lib/requests.mjs';

const MB = 1024 * 1024;
const boundary = '----bench-large-upload-7f3a';

function form() {
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="meeting.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return Buffer.concat([head, randomBytes(25 * MB), tail]);
}

export default {
  name: 'large-transcription-upload',
  description: 'POST /v1/audio/transcriptions with a 25 MB file (spooled, checked whole, then sent)',
  concurrency: [1, 4],
  setup() {
    const headers = { ...OPENAI_HEADERS, 'content-type': `multipart/form-data; boundary=${boundary}` };
    return {
      request: { method: 'POST', path: '/v1/audio/transcriptions', headers, body: form() },
      expect({ status, body }) {
        return status === 200 || `status ${status}: ${body.toString('utf8', 0, 300)}`;
      },
    };
  },
};
