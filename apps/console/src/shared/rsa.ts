import { JSEncrypt } from 'jsencrypt';

/**
 * RSA as the gateway expects it (api-contract.md "RSA"): the value's UTF-8 bytes cut into chunks of
 * keyBytes − 11 (RSA_CHUNK_BYTES = 117 for the 1024-bit key), each chunk encrypted with RSAES-PKCS1-v1_5, the ciphertext
 * blocks concatenated and base64-encoded.
 *
 * jsencrypt's own `encrypt` pads a JS string, which cannot express a chunk boundary inside a multi-byte
 * character, so the padding is done here on bytes and jsencrypt performs the raw public-key operation.
 */

export const RSA_TOO_LONG = 'Message too long for RSA';

/** The contract's encrypted fields are at most 4096 base64 characters: 3072 bytes of ciphertext. */
const MAX_CIPHERTEXT_BYTES = 3072;

interface BigIntegerLike {
  toString(radix: number): string;
}
type BigIntegerCtor = new (value: string, radix: number) => BigIntegerLike;
interface RawRsaKey {
  n: BigIntegerLike & { bitLength(): number; constructor: BigIntegerCtor };
  encrypt(text: string, pad: (text: string, keyBytes: number) => BigIntegerLike | null): string | null;
}

function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const b of bytes) hex += b.toString(16).padStart(2, '0');
  return hex;
}

function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** EM = 0x00 ‖ 0x02 ‖ PS (non-zero random, ≥ 8 bytes) ‖ 0x00 ‖ M (RFC 8017 §7.2.1). */
export function pkcs1v15Pad(message: Uint8Array, keyBytes: number): Uint8Array {
  if (message.length > keyBytes - 11) throw new Error(RSA_TOO_LONG);
  const em = new Uint8Array(keyBytes);
  em[1] = 0x02;
  const psEnd = keyBytes - message.length - 1;
  const random = new Uint8Array(1);
  for (let i = 2; i < psEnd; i++) {
    do crypto.getRandomValues(random);
    while (random[0] === 0);
    em[i] = random[0];
  }
  em[psEnd] = 0x00;
  em.set(message, psEnd + 1);
  return em;
}

function loadKey(publicKeyPem: string): RawRsaKey {
  const jse = new JSEncrypt();
  jse.setPublicKey(publicKeyPem);
  const key = jse.getKey() as unknown as RawRsaKey;
  if (!key?.n) throw new Error('Invalid RSA public key');
  return key;
}

/** Encrypts `plaintext` for the gateway; throws 'Message too long for RSA' beyond the field's limit. */
export function rsaEncrypt(publicKeyPem: string, plaintext: string): string {
  const key = loadKey(publicKeyPem);
  const keyBytes = (key.n.bitLength() + 7) >> 3;
  const chunkBytes = keyBytes - 11;
  const data = new TextEncoder().encode(plaintext);
  const chunks = Math.max(1, Math.ceil(data.length / chunkBytes));
  if (chunks * keyBytes > MAX_CIPHERTEXT_BYTES) throw new Error(RSA_TOO_LONG);

  const BigInteger = key.n.constructor;
  const out = new Uint8Array(chunks * keyBytes);
  for (let i = 0; i < chunks; i++) {
    const chunk = data.subarray(i * chunkBytes, (i + 1) * chunkBytes);
    // jsencrypt hands the padding function its key size; the chunk travels in the closure.
    const hex = key.encrypt('', (_text, size) => new BigInteger(toHex(pkcs1v15Pad(chunk, size)), 16));
    if (!hex) throw new Error(RSA_TOO_LONG);
    out.set(hexToBytes(hex.padStart(keyBytes * 2, '0')), i * keyBytes);
  }
  return toBase64(out);
}
