import forge from 'node-forge';

/** Upper bound on blocks in one field: a 64-character password is at most 256 UTF-8 bytes = 3 blocks. */
const MAX_BLOCKS = 8;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export type RsaPrivateKey = forge.pki.rsa.PrivateKey;

export function parsePrivateKey(pem: string): RsaPrivateKey {
  return forge.pki.privateKeyFromPem(pem);
}

/** Bytes per ciphertext block: the modulus length (128 for a 1024-bit key). */
export function blockBytes(key: RsaPrivateKey): number {
  return Math.ceil(key.n.bitLength() / 8);
}

/** Splits a byte string into consecutive blocks of `size` bytes (the last may be shorter). */
export function splitBlocks(bytes: Uint8Array, size: number): Uint8Array[] {
  const blocks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) blocks.push(bytes.subarray(i, i + size));
  return blocks;
}

/**
 * Decrypts the wire format of every encrypted field: base64 of concatenated RSAES-PKCS1-v1_5 blocks, each
 * holding up to keyBytes−11 bytes of the UTF-8 value. Answers null for anything wrong (bad base64, wrong
 * length, bad padding, invalid UTF-8) without saying which: callers must treat null exactly like a wrong
 * password so the server is no padding oracle. Every block is processed even after a failure, so how long
 * this takes does not depend on which block was bad.
 *
 * Node ≥ 20 refuses PKCS#1 v1.5 in crypto.privateDecrypt (CVE-2023-46809); node-forge implements it.
 */
export function decryptChunked(keys: RsaPrivateKey[], ciphertext: string): string | null {
  const compact = ciphertext.replace(/\s+/g, '');
  if (!compact || !BASE64.test(compact)) return null;
  const bytes = Buffer.from(compact, 'base64');
  for (const key of keys) {
    const size = blockBytes(key);
    if (bytes.length === 0 || bytes.length % size !== 0 || bytes.length / size > MAX_BLOCKS) continue;
    const parts: Buffer[] = [];
    let failed = false;
    for (const block of splitBlocks(bytes, size)) {
      try {
        parts.push(Buffer.from(key.decrypt(Buffer.from(block).toString('binary'), 'RSAES-PKCS1-V1_5'), 'binary'));
      } catch {
        failed = true;
      }
    }
    if (failed) continue;
    try {
      return utf8.decode(Buffer.concat(parts));
    } catch {
      continue;
    }
  }
  return null;
}
