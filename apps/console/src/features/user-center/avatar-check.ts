import { AVATAR_MAX_BYTES } from '@suanli/contracts';
import { AVATAR_TYPES } from './api';

/** The server sniffs the content too; checking here saves the upload and explains the rule at once. */
export function avatarProblem(file: { type: string; size: number }): string | null {
  if (!AVATAR_TYPES.includes(file.type)) return '头像仅支持 PNG、JPG、WEBP 格式的图片';
  if (file.size > AVATAR_MAX_BYTES) return `头像图片不能超过 ${AVATAR_MAX_BYTES / 1024 / 1024} MB`;
  return null;
}
