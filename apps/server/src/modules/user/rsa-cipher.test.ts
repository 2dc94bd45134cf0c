import { constants, generateKeyPairSync, publicEncrypt, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encryptWith } from '../../../test/rsa';
import { blockBytes, decryptChunked, parsePrivateKey, splitBlocks } from './rsa-cipher';

const pair = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 1024,
    publicExponent: 0x10001,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });

describe('splitBlocks', () => {
  it('cuts bytes into consecutive blocks, the last one shorter', () => {
    const bytes = Uint8Array.from({ length: 250 }, (_, i) => i);
    const blocks = splitBlocks(bytes, 117);
    expect(blocks.map((b) => b.length)).toEqual([117, 117, 16]);
    expect(Buffer.concat(blocks)).toEqual(Buffer.from(bytes));
    expect(splitBlocks(new Uint8Array(0), 117)).toEqual([]);
  });
});

describe('decryptChunked', () => {
  const k = pair();
  const key = parsePrivateKey(k.privateKey);

  it('reads the key size from the modulus', () => {
    expect(blockBytes(key)).toBe(128);
  });

  it('decrypts one block, two blocks (>117 UTF-8 bytes) and exactly 117 bytes', () => {
    expect(decryptChunked([key], encryptWith(k.publicKey, 'Passw0rd!'))).toBe('Passw0rd!');
    const long = `a1${'密'.repeat(60)}`;
    expect(Buffer.byteLength(long)).toBe(182);
    const cipher = encryptWith(k.publicKey, long);
    expect(Buffer.from(cipher, 'base64').length).toBe(256);
    expect(decryptChunked([key], cipher)).toBe(long);
    const exact = 'x'.repeat(117);
    expect(Buffer.from(encryptWith(k.publicKey, exact), 'base64').length).toBe(128);
    expect(decryptChunked([key], encryptWith(k.publicKey, exact))).toBe(exact);
  });

  it('tolerates line breaks in the base64 (openssl base64 wraps at 64 columns)', () => {
    const cipher = encryptWith(k.publicKey, 'Passw0rd!');
    expect(decryptChunked([key], cipher.replace(/(.{64})/g, '$1\n'))).toBe('Passw0rd!');
  });

  it('answers null for anything that is not a valid ciphertext, never throwing', () => {
    const good = Buffer.from(encryptWith(k.publicKey, 'Passw0rd!'), 'base64');
    const flipped = Buffer.from(good);
    flipped[5] ^= 0xff;
    const cases = [
      '',
      'not base64 at all!',
      good.subarray(0, 127).toString('base64'),
      Buffer.concat([good, good.subarray(0, 10)]).toString('base64'),
      flipped.toString('base64'),
      randomBytes(128).toString('base64'),
      Buffer.concat(Array.from({ length: 9 }, () => good)).toString('base64'),
    ];
    for (const c of cases) expect(decryptChunked([key], c)).toBeNull();
  });

  it('answers null when one of several blocks is bad', () => {
    const cipher = Buffer.from(encryptWith(k.publicKey, `a1${'密'.repeat(60)}`), 'base64');
    cipher[200] ^= 0x01;
    expect(decryptChunked([key], cipher.toString('base64'))).toBeNull();
  });

  it('answers null for bytes that are not UTF-8', () => {
    const cipher = publicEncrypt({ key: k.publicKey, padding: constants.RSA_PKCS1_PADDING }, Buffer.from([0xff, 0xfe, 0x41]));
    expect(decryptChunked([key], cipher.toString('base64'))).toBeNull();
  });

  it('tries every active key, so ciphertexts made with a key being rotated out still decrypt', () => {
    const other = pair();
    const otherKey = parsePrivateKey(other.privateKey);
    expect(decryptChunked([otherKey, key], encryptWith(k.publicKey, 'Passw0rd!'))).toBe('Passw0rd!');
    expect(decryptChunked([otherKey], encryptWith(k.publicKey, 'Passw0rd!'))).toBeNull();
  });
});
