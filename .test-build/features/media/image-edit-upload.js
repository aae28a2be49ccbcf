import { badRequest, semanticError } from '../../contract/errors/gateway-error.js';
import { FormSchema } from '../../kernel/http/multipart/form-fields.js';
import { inspectPngFile, PngError } from './png.js';
/** Image and mask must be under 4 MB. */
export const IMAGE_LIMIT = 4 * 1024 * 1024 - 1;
const OLDER_FAMILY = 'dall-e-2';
const NEWER_FAMILY = 'dall-e-3';
const OLDER_SIZES = ['256x256', '512x512', '1024x1024'];
const IMAGE_FIELDS = ['image', 'image[]'];
/** Reads a spooled image part as a PNG (and, when asked, whether it has transparent pixels). */
async function png(part, transparency = false) {
    const param = part.field === 'mask' ? 'mask' : 'image';
    try {
        return await inspectPngFile(part.path, { fileBytes: part.bytes, transparency });
    }
    catch (err) {
        if (err instanceof PngError)
            throw badRequest(`${param} ${err.message}; it must be a PNG file.`, param);
        throw err;
    }
}
/**
 * Rules of POST /v1/images/edits, checked before anything is sent upstream: `image` (and an
 * optional `mask`) PNG by signature and header, under 4 MB, square; without a mask the
 * image must have transparency (pixels read, see png.ts); a mask has the image's size. The
 * older family (dall-e-2, the default) takes 256x256, 512x512 or 1024x1024; the newer one
 * (dall-e-3) cannot edit. Malformed or out-of-bounds: 400; well-formed but impossible: 422.
 */
export function imageEditRules(schemaFile) {
    const schema = new FormSchema(schemaFile);
    return () => ({
        fileLimit: () => IMAGE_LIMIT,
        onFileStart(part) {
            if (!IMAGE_FIELDS.includes(part.field) && part.field !== 'mask') {
                throw badRequest(`Unexpected file part ${part.field}: send image and mask.`, part.field);
            }
        },
        checkEarlyFields: (fields) => void schema.check(fields, true),
        async finish(fields, files) {
            const body = schema.check(fields);
            const model = body.model ?? OLDER_FAMILY;
            if (model === NEWER_FAMILY)
                throw semanticError(`${NEWER_FAMILY} cannot edit images; use ${OLDER_FAMILY}.`, 'model');
            if (model === OLDER_FAMILY && body.size !== undefined && !OLDER_SIZES.includes(body.size)) {
                throw semanticError(`size must be one of ${OLDER_SIZES.join(', ')} for ${OLDER_FAMILY}.`, 'size');
            }
            const images = files.filter((f) => IMAGE_FIELDS.includes(f.field));
            if (images.length === 0)
                throw badRequest('image is required.', 'image');
            const masks = files.filter((f) => f.field === 'mask');
            if (masks.length > 1)
                throw badRequest('Send one mask.', 'mask');
            // Without a mask, the first image's transparent area marks what to edit: its pixels are read.
            const infos = [];
            for (const [i, part] of images.entries()) {
                const info = await png(part, i === 0 && !masks[0]);
                if (info.width !== info.height)
                    throw badRequest(`image must be square (it is ${info.width}x${info.height}).`, 'image');
                infos.push(info);
            }
            const first = infos[0];
            if (masks[0]) {
                const mask = await png(masks[0]);
                if (mask.width !== first.width || mask.height !== first.height) {
                    throw semanticError(`mask must have the image's size ${first.width}x${first.height} (it is ${mask.width}x${mask.height}).`, 'mask');
                }
            }
            else if (!first.transparent) {
                throw semanticError('image has no transparent pixels: without a mask, the transparent area marks what to edit.', 'image');
            }
        },
    });
}
//# sourceMappingURL=image-edit-upload.js.map