import { AVATAR_MAX_BYTES } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';
import { avatarProblem } from './avatar-check';

describe('avatar check', () => {
  it('accepts png, jpeg and webp up to 2 MiB', () => {
    for (const type of ['image/png', 'image/jpeg', 'image/webp']) expect(avatarProblem({ type, size: AVATAR_MAX_BYTES })).toBeNull();
  });
  it('refuses other types and larger files with a Chinese reason', () => {
    expect(avatarProblem({ type: 'image/gif', size: 10 })).toContain('PNG、JPG、WEBP');
    expect(avatarProblem({ type: 'image/png', size: AVATAR_MAX_BYTES + 1 })).toContain('2 MB');
  });
});
