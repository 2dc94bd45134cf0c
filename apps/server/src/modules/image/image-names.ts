import { IMAGE_REPOSITORY_NAME_MAX, IMAGE_REPOSITORY_NAME_PATTERN, IMAGE_TAG_PATTERN, PUBLIC_IMAGE_NAMESPACE } from '@suanli/contracts';

/** One path component of a repository name (OCI distribution spec). */
const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
/** Namespaces no user may get: the operators' public one, and the name registries use for official images. */
const RESERVED = new Set([PUBLIC_IMAGE_NAMESPACE, 'library']);

/**
 * A user's registry namespace: the username in lower case — unless that is not a valid path component
 * (`_alice`, `a___b`: the registry would refuse every push) or a reserved name (a user called `public` must not
 * push the operators' public images). Those get `u-<user id>`; usernames never contain `-`, so it is no one
 * else's username.
 */
export function namespaceOf(username: string, userId: string): string {
  const lower = username.toLowerCase();
  return COMPONENT.test(lower) && !RESERVED.has(lower) ? lower : `u-${userId.toLowerCase().replace(/[^a-z0-9]/g, '')}`;
}

const REPOSITORY = new RegExp(IMAGE_REPOSITORY_NAME_PATTERN);
const TAG = new RegExp(IMAGE_TAG_PATTERN);

/** Why a repository name (inside the caller's namespace) is not acceptable, or null when it is. */
export function repositoryNameProblem(name: string): string | null {
  if (!name) return '不能为空';
  if (name.length > IMAGE_REPOSITORY_NAME_MAX) return `长度不能超过 ${IMAGE_REPOSITORY_NAME_MAX} 个字符`;
  if (!REPOSITORY.test(name)) return '只能使用小写字母、数字以及 . _ - /，且须以字母或数字开头和结尾';
  return null;
}

/** Why a tag is not acceptable (docker's rule), or null. */
export function tagProblem(tag: string): string | null {
  return TAG.test(tag) ? null : '只能使用字母、数字以及 . _ -（不能以 . 或 - 开头，最长 128 个字符）';
}

/**
 * A private image of the task form, `<namespace>/<repository>:<tag>` (the registry reference without the
 * host), into its parts; null for anything else (public catalogue ids never contain a slash).
 */
export function parseImageRef(ref: string): { repository: string; namespace: string; tag: string } | null {
  const colon = ref.lastIndexOf(':');
  const slash = ref.indexOf('/');
  if (slash <= 0 || colon < slash) return null;
  const repository = ref.slice(0, colon);
  const tag = ref.slice(colon + 1);
  if (!REPOSITORY.test(repository) || !TAG.test(tag)) return null;
  return { repository, namespace: repository.slice(0, slash), tag };
}
