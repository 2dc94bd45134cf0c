import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { secretFile } from '../../lib/secret-file';

/**
 * Encrypts the platform-held private keys at rest (AES-256-GCM) with a secret kept beside the database
 * (`<dataDir>/keys/keypair.secret`, 0600, made on first start; production: a secret mount). A copy of
 * the database alone does not give anyone a login to the clusters.
 */
export class KeyVault {
  private readonly key: Buffer;

  constructor(dataDir: string) {
    this.key = secretFile(dataDir, 'keypair.secret');
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
