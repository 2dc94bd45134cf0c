import { describe, expect, it } from 'vitest';
import { sniffImage } from './avatar';

describe('sniffImage', () => {
  it('recognises PNG, JPEG and WebP by their magic bytes', () => {
    expect(sniffImage(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]))).toBe('png');
    expect(sniffImage(Buffer.from([0xff, 0xd8, 0xff, 0xdb]))).toBe('jpg');
    expect(sniffImage(Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]))).toBe('webp');
  });

  it('refuses everything else, including truncated signatures and look-alikes', () => {
    for (const b of [
      Buffer.alloc(0),
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
      Buffer.from('GIF89a'),
      Buffer.from([0x89, 0x50, 0x4e, 0x47]),
      Buffer.from([0xff, 0xd8]),
      Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVE')]),
    ]) {
      expect(sniffImage(b)).toBeNull();
    }
  });

  it('reads a view into a larger buffer from its own offset', () => {
    const big = Buffer.concat([Buffer.from('junk'), Buffer.from([0xff, 0xd8, 0xff, 0xe0])]);
    expect(sniffImage(big.subarray(4))).toBe('jpg');
    expect(sniffImage(new Uint8Array(big.buffer, big.byteOffset, 4))).toBeNull();
  });
});
