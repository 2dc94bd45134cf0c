import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Encrypts the platform-held private keys at rest (AES-256-GCM) with a secret kept beside the database
 * (`<dataDir>/keys/keypair.secret`, 0600, made on first start; production: a secret mount). A copy of
 * the database alone does not give anyone a login to the clusters.
 */
export class KeyVault {
  private readonly key: Buffer;

  constructor(dataDir: string) {
    const file = path.join(dataDir, 'keys', 'keypair.secret');
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    try {
      fs.writeFileSync(file, randomBytes(32), { flag: 'wx', mode: 0o600 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    this.key = fs.readFileSync(file);
    if (this.key.length !== 32) throw new Error(`${file}: expected 32 bytes`);
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return [iv, c.getAuthTag(), body].map((b) => b.toString('base64')).join('.');
  }

  open(sealed: string): string {
    const [iv, tag, body] = sealed.split('.').map((s) => Buffer.from(s, 'base64'));
    const d = createDecipheriv('aes-256-gcm', this.key, iv);
    d.setAuthTag(tag);
    return Buffer.concat([d.update(body), d.final()]).toString('utf8');
  }
}
