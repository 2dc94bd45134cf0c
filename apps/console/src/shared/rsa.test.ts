import forge from 'node-forge';
import { RSA_CHUNK_BYTES, RSA_KEY_BITS } from '@suanli/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { pkcs1v15Pad, rsaEncrypt, RSA_TOO_LONG } from './rsa';

/**
 * Encrypt with the console's helper (jsencrypt underneath), decrypt with node-forge the way the gateway
 * does (Node's own privateDecrypt refuses PKCS#1 v1.5 since the Marvin fix).
 */
let publicPem: string;
let privateKey: forge.pki.rsa.PrivateKey;
const KEY_BYTES = RSA_KEY_BITS / 8;

beforeAll(() => {
  const pair = forge.pki.rsa.generateKeyPair({ bits: RSA_KEY_BITS, e: 0x10001 });
  publicPem = forge.pki.publicKeyToPem(pair.publicKey);
  privateKey = pair.privateKey;
});

function decryptBlocks(base64: string): { blocks: number; text: string } {
  const raw = forge.util.decode64(base64);
  expect(raw.length % KEY_BYTES).toBe(0);
  let plain = '';
  for (let i = 0; i < raw.length; i += KEY_BYTES) plain += privateKey.decrypt(raw.slice(i, i + KEY_BYTES), 'RSAES-PKCS1-V1_5');
  return { blocks: raw.length / KEY_BYTES, text: forge.util.decodeUtf8(plain) };
}

describe('rsaEncrypt', () => {
  it('encrypts a password into one block that decrypts to the same text', () => {
    const out = rsaEncrypt(publicPem, 'Demo@123456');
    expect(out).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(decryptBlocks(out)).toEqual({ blocks: 1, text: 'Demo@123456' });
  });

  it('uses random padding: the same value encrypts differently each time', () => {
    expect(rsaEncrypt(publicPem, 'same')).not.toBe(rsaEncrypt(publicPem, 'same'));
  });

  it(`fits exactly ${RSA_CHUNK_BYTES} bytes in one block and starts a second block at ${RSA_CHUNK_BYTES + 1}`, () => {
    const full = 'a'.repeat(RSA_CHUNK_BYTES);
    expect(decryptBlocks(rsaEncrypt(publicPem, full))).toEqual({ blocks: 1, text: full });
    const over = 'b'.repeat(RSA_CHUNK_BYTES + 1);
    expect(decryptBlocks(rsaEncrypt(publicPem, over))).toEqual({ blocks: 2, text: over });
  });

  it('chunks by UTF-8 bytes, even through the middle of a Chinese character', () => {
    // 116 ASCII bytes + a 3-byte character: the first chunk ends one byte into '算'.
    const text = 'x'.repeat(RSA_CHUNK_BYTES - 1) + '算力调度服务平台密码';
    const { blocks, text: back } = decryptBlocks(rsaEncrypt(publicPem, text));
    expect(blocks).toBe(2);
    expect(back).toBe(text);
  });

  it("refuses a value too long for the encrypted field with 'Message too long for RSA'", () => {
    // 24 blocks of 128 bytes fill the 4096-character field; 25 do not.
    expect(() => rsaEncrypt(publicPem, 'y'.repeat(RSA_CHUNK_BYTES * 24))).not.toThrow();
    expect(() => rsaEncrypt(publicPem, 'y'.repeat(RSA_CHUNK_BYTES * 24 + 1))).toThrow(RSA_TOO_LONG);
  });
});

describe('pkcs1v15Pad', () => {
  it('builds 0x00 0x02 ‖ non-zero random ‖ 0x00 ‖ message', () => {
    const msg = new TextEncoder().encode('hi');
    const em = pkcs1v15Pad(msg, KEY_BYTES);
    expect(em.length).toBe(KEY_BYTES);
    expect([em[0], em[1]]).toEqual([0x00, 0x02]);
    const sep = KEY_BYTES - msg.length - 1;
    expect(em.slice(2, sep).every((b) => b !== 0)).toBe(true);
    expect(em[sep]).toBe(0x00);
    expect([...em.slice(sep + 1)]).toEqual([...msg]);
  });

  it(`refuses a chunk longer than keyBytes − 11 (${RSA_CHUNK_BYTES})`, () => {
    expect(() => pkcs1v15Pad(new Uint8Array(RSA_CHUNK_BYTES + 1), KEY_BYTES)).toThrow(RSA_TOO_LONG);
  });
});
