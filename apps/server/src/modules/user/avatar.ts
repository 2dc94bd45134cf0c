import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { AVATAR_FILE_PATTERN } from '@suanli/contracts';

export type ImageKind = 'png' | 'jpg' | 'webp';

export const IMAGE_TYPES: Record<ImageKind, string> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' };

/**
 * The image type from the first bytes of the content. The file name and the declared content type are the
 * client's word and are ignored: a script named .png must never be served back as an image (or as HTML).
 */
export function sniffImage(bytes: Uint8Array): ImageKind | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpg';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  return null;
}

/** Wider or taller than this is refused before decoding (a decompression bomb declares absurd dimensions). */
export const AVATAR_MAX_SIDE = 4096;
/** Stored avatars fit in this square: the console shows them at 24–96 px. */
export const AVATAR_STORED_SIDE = 512;
const SHARP_FORMAT: Record<ImageKind, string> = { png: 'png', jpg: 'jpeg', webp: 'webp' };

export type ReencodeResult = { ok: true; bytes: Buffer } | { ok: false; reason: 'undecodable' | 'too-large' };

/**
 * Decodes the image and encodes it afresh in the same format: only pixels survive — no bytes appended after
 * the image (a polyglot's payload), no metadata (EXIF with GPS position), no extra frames — and it is scaled
 * down to fit AVATAR_STORED_SIDE. Dimensions come from the header and are checked before any decoding. Runs
 * on libuv's thread pool (sharp/libvips), not the event loop.
 */
export async function reencodeImage(bytes: Buffer, kind: ImageKind): Promise<ReencodeResult> {
  const limitInputPixels = AVATAR_MAX_SIDE * AVATAR_MAX_SIDE;
  let meta: sharp.Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    return { ok: false, reason: 'undecodable' };
  }
  if (meta.format !== SHARP_FORMAT[kind] || !meta.width || !meta.height) return { ok: false, reason: 'undecodable' };
  if (meta.width > AVATAR_MAX_SIDE || meta.height > AVATAR_MAX_SIDE) return { ok: false, reason: 'too-large' };
  try {
    const img = sharp(bytes, { limitInputPixels, failOn: 'error' })
      .rotate() // applies the EXIF orientation before the metadata is dropped
      .resize(AVATAR_STORED_SIDE, AVATAR_STORED_SIDE, { fit: 'inside', withoutEnlargement: true });
    const out = kind === 'png' ? img.png() : kind === 'jpg' ? img.jpeg({ quality: 85 }) : img.webp({ quality: 85 });
    return { ok: true, bytes: await out.toBuffer() };
  } catch {
    return { ok: false, reason: 'undecodable' };
  }
}

/** Avatars on local disk under `${dataDir}/avatars/`. */
export class AvatarStore {
  constructor(private readonly dir: string) {}

  /** Writes the image under a fresh name (temp file + rename, so a reader never sees half a file). */
  async save(bytes: Buffer, kind: ImageKind): Promise<string> {
    await fs.mkdir(this.dir, { recursive: true });
    const name = `${randomBytes(16).toString('hex')}.${kind}`;
    const tmp = path.join(this.dir, `.${name}.tmp`);
    await fs.writeFile(tmp, bytes);
    await fs.rename(tmp, path.join(this.dir, name));
    return name;
  }

  /** Absolute path of a stored avatar, or null; the name must match AVATAR_FILE_PATTERN (no path tricks). */
  async locate(name: string): Promise<{ file: string; kind: ImageKind; size: number } | null> {
    if (!new RegExp(AVATAR_FILE_PATTERN).test(name)) return null;
    const file = path.join(this.dir, name);
    try {
      const st = await fs.stat(file);
      return { file, kind: path.extname(name).slice(1) as ImageKind, size: st.size };
    } catch {
      return null;
    }
  }

  async remove(name: string): Promise<void> {
    if (new RegExp(AVATAR_FILE_PATTERN).test(name)) await fs.rm(path.join(this.dir, name), { force: true });
  }
}
