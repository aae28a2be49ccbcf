import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
/** A JSON text as one line (answers may be pretty-printed). */
function oneLine(text) {
    if (!/[\r\n]/.test(text))
        return text;
    try {
        return JSON.stringify(JSON.parse(text));
    }
    catch {
        return JSON.stringify(text);
    }
}
/** `{"id","custom_id","response":{"status_code","request_id","body"},"error"}` for one line. */
export function outputLine(line) {
    const response = line.status_code === null || line.status_code === undefined
        ? 'null'
        : `{"status_code":${Number(line.status_code)},"request_id":${JSON.stringify(line.request_id)},"body":${line.response ? oneLine(line.response) : 'null'}}`;
    return `{"id":${JSON.stringify(line.result_id)},"custom_id":${JSON.stringify(line.custom_id)},"response":${response},"error":${line.error ?? 'null'}}\n`;
}
async function write(stream, text) {
    if (stream.errored)
        throw stream.errored;
    if (!stream.write(text))
        await once(stream, 'drain');
}
async function close(stream) {
    if (stream.destroyed)
        return;
    await new Promise((resolve, reject) => stream.end((err) => (err ? reject(err) : resolve())));
}
/**
 * Writes the batch's output file (lines that succeeded) and error file (lines that failed),
 * in input order, page by page from the store. Ids are derived from the batch id, so writing
 * again after a restart replaces the same two files.
 */
export async function writeOutputFiles(batch, batches, files) {
    const suffix = batch.id.replace(/^batch-gw-/, '');
    const outputFileId = `file-gw-${suffix}-output`;
    const errorFileId = `file-gw-${suffix}-errors`;
    const outPath = files.tempPath();
    const errPath = files.tempPath();
    const out = createWriteStream(outPath);
    const err = createWriteStream(errPath);
    // A write failure (a full disk) surfaces where the writes are awaited, never as an uncaught event.
    let failure;
    for (const stream of [out, err])
        stream.on('error', (e) => (failure ??= e));
    let errors = 0;
    try {
        let after = 0;
        for (;;) {
            const page = await batches.lines(batch.id, ['succeeded', 'failed'], after, 500);
            if (!page.length)
                break;
            for (const line of page) {
                if (line.state === 'succeeded')
                    await write(out, outputLine(line));
                else {
                    errors++;
                    await write(err, outputLine(line));
                }
            }
            after = Number(page.at(-1).line_no);
        }
    }
    finally {
        await close(out);
        await close(err);
    }
    if (failure)
        throw failure;
    const base = { scope: batch.scope, provider: batch.provider, purpose: 'batch_output' };
    await files.add({ ...base, id: outputFileId, filename: `${batch.id}_output.jsonl` }, outPath);
    if (errors)
        await files.add({ ...base, id: errorFileId, filename: `${batch.id}_error.jsonl` }, errPath);
    else
        await files.removeTemp(errPath);
    return { outputFileId, errorFileId: errors ? errorFileId : null };
}
//# sourceMappingURL=output-files.js.map