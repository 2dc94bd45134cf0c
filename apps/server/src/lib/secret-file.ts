import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A 32-byte secret kept beside the database in `<dataDir>/keys/<name>` (0600 in a 0700 folder), made on first
 * start and read on every start after; every gateway replica needs the same file. Creating it is exclusive
 * (`wx`), so two processes starting together agree on one secret.
 */
export function secretFile(dataDir: string, name: string): Buffer {
  const file = path.join(dataDir, 'keys', name);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, randomBytes(32), { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const key = fs.readFileSync(file);
  if (key.length !== 32) throw new Error(`${file}: expected 32 bytes`);
  return key;
}
