/** Text previews on the detail page: which files qualify and how the first bytes are shown. */
import type { FileEntry } from '@suanli/contracts';

/** Only the head of a file is fetched (Range), so a preview costs the same for 1 KB and 10 GB. */
export const PREVIEW_BYTES = 64 * 1024;

const TEXT_EXTENSIONS = new Set(
  (
    'txt text md markdown log out err csv tsv json jsonl ndjson yaml yml toml ini cfg conf env properties xml html htm css ' +
    'js mjs cjs ts tsx jsx py ipynb r rb pl php java kt scala go rs c h cc cpp hpp cu cuh m swift sh bash zsh fish ' +
    'bat ps1 sql slurm sbatch pbs lsf dockerfile makefile cmake gradle tex bib srt vtt gitignore'
  ).split(' '),
);

export type PreviewKind = 'text' | 'empty' | 'none';

export function previewKind(entry: Pick<FileEntry, 'name' | 'size' | 'type'>): PreviewKind {
  if (entry.type !== 'file') return 'none';
  if (entry.size === 0) return 'empty';
  const lower = entry.name.toLowerCase();
  const dot = lower.lastIndexOf('.');
  const ext = dot >= 0 ? lower.slice(dot + 1) : lower;
  if (TEXT_EXTENSIONS.has(ext)) return 'text';
  // Extension-less files on a cluster are usually scripts, logs or job output; the content sniff decides.
  if (dot <= 0 && entry.size <= 1024 * 1024) return 'text';
  return 'none';
}

export interface Preview {
  text: string;
  truncated: boolean;
  binary: boolean;
}

export function decodePreview(bytes: Uint8Array, fileSize: number): Preview {
  const head = bytes.subarray(0, PREVIEW_BYTES);
  // A NUL byte early on is the classic sign of a binary file.
  const binary = head.subarray(0, 8192).includes(0);
  const text = binary ? '' : new TextDecoder('utf-8', { fatal: false }).decode(head);
  return { text, truncated: fileSize > head.length, binary };
}
