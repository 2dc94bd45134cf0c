import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export type ImageKind = 'png' | 'jpg' | 'webp';

export const IMAGE_TYPES: Record<ImageKind, string> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' };

/** Stored avatar names: random, so they are never reused and can be cached forever, and never guessable. */
export const AVATAR_FILE_PATTERN = '^[a-f0-9]{32}\\.(png|jpg|webp)$';

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
