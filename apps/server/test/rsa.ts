import { constants, publicEncrypt } from 'node:crypto';

/** What a client does: UTF-8 bytes in 117-byte chunks, each RSAES-PKCS1-v1_5, concatenated, base64. */
export function encryptWith(publicKeyPem: string, value: string): string {
  const bytes = Buffer.from(value, 'utf8');
  const blocks: Buffer[] = [];
  for (let i = 0; i < bytes.length || i === 0; i += 117) {
    blocks.push(publicEncrypt({ key: publicKeyPem, padding: constants.RSA_PKCS1_PADDING }, bytes.subarray(i, i + 117)));
  }
  return Buffer.concat(blocks).toString('base64');
}
