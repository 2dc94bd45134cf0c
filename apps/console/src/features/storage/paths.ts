/**
 * User-visible path helpers for the file manager. Paths are POSIX-like and rooted at the user's home on a
 * center (`/`); the file service refuses anything that would leave it, these helpers only keep the console
 * from asking for nonsense.
 */

export const ROOT = '/';

/** `/a/b` + `c` → `/a/b/c`; tolerates stray slashes on either side. */
export function joinPath(dir: string, ...names: string[]): string {
  const parts = [dir, ...names].flatMap((p) => p.split('/')).filter(Boolean);
  return `/${parts.join('/')}`;
}

export function parentOf(path: string): string {
  const parts = path.split('/').filter(Boolean);
  parts.pop();
  return `/${parts.join('/')}`;
}

export function baseName(path: string): string {
  const parts = path.split('/').filter(Boolean);
  return parts.at(-1) ?? '';
}

/** Normalises a path from the URL: always absolute, no empty or dot segments. */
export function normalizePath(path: string | null | undefined): string {
  if (!path) return ROOT;
  const parts = path.split('/').filter((p) => p && p !== '.' && p !== '..');
  return `/${parts.join('/')}`;
}

/** Breadcrumb items: `/a/b` → [{/, 全部文件}, {/a, a}, {/a/b, b}]. */
export function breadcrumbOf(path: string, rootTitle = '全部文件'): { path: string; title: string }[] {
  const parts = normalizePath(path).split('/').filter(Boolean);
  return [{ path: ROOT, title: rootTitle }, ...parts.map((title, i) => ({ path: `/${parts.slice(0, i + 1).join('/')}`, title }))];
}

/** True when `path` is `ancestor` itself or inside it (a directory cannot be moved into itself). */
export function isWithin(path: string, ancestor: string): boolean {
  const p = normalizePath(path);
  const a = normalizePath(ancestor);
  return a === ROOT || p === a || p.startsWith(`${a}/`);
}

/** Why a new file or folder name is refused, or null. Mirrors the service's FileName rule (1308 otherwise). */
export function nameProblem(name: string): string | null {
  const n = name.trim();
  if (!n) return '请输入名称';
  if (n !== name) return '名称首尾不能有空格';
  if (n === '.' || n === '..') return '名称不能为 . 或 ..';
  if (/[/\\\0]/.test(n)) return '名称不能包含 / 或 \\';
  if (new TextEncoder().encode(n).length > 255) return '名称过长（最多 255 字节）';
  return null;
}

/** Every directory (relative, parents first) that a set of relative file paths and folders needs. */
export function directoriesFor(relativeFilePaths: string[], relativeDirs: string[] = []): string[] {
  const set = new Set<string>();
  const addChain = (rel: string) => {
    const parts = rel.split('/').filter(Boolean);
    for (let i = 1; i <= parts.length; i++) set.add(parts.slice(0, i).join('/'));
  };
  for (const p of relativeFilePaths) addChain(p.split('/').filter(Boolean).slice(0, -1).join('/'));
  for (const d of relativeDirs) addChain(d);
  return [...set].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}

/** The directory part of a relative path: `a/b/c.txt` → `a/b`, `c.txt` → ''. */
export function relativeDirOf(relativePath: string): string {
  return relativePath.split('/').filter(Boolean).slice(0, -1).join('/');
}
