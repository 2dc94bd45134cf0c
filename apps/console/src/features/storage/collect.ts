/**
 * Turning what the user picked or dropped into files with relative paths, so folders keep their structure.
 */

export interface PickedFile {
  file: File;
  /** `a/b/c.txt` for a file inside a dropped/picked folder `a`; just the name for a loose file. */
  relativePath: string;
}

export interface Picked {
  files: PickedFile[];
  /** Every folder seen, relative (`a`, `a/b`), so empty folders are created too. */
  dirs: string[];
}

/** From `<input type=file multiple>` or `<input webkitdirectory>` (which fills `webkitRelativePath`). */
export function fromFileList(list: FileList | File[]): Picked {
  const files = Array.from(list).map((file) => ({ file, relativePath: file.webkitRelativePath || file.name }));
  return { files, dirs: [] };
}

/**
 * From a drop. Entries must be taken from the DataTransfer synchronously, inside the event handler — it is
 * emptied once the handler returns — hence the split: call this in the handler, await its result after.
 * Folders are walked through `webkitGetAsEntry`; items without an entry (scripted drops, some browsers)
 * fall back to their File.
 */
export function fromDataTransfer(dt: DataTransfer): Promise<Picked> {
  /** Folders to walk (and file entries whose item had no File). */
  const entries: FileSystemEntry[] = [];
  const loose: File[] = [];
  const items = dt.items ? Array.from(dt.items) : [];
  for (const item of items) {
    if (item.kind !== 'file') continue;
    const entry = typeof item.webkitGetAsEntry === 'function' ? item.webkitGetAsEntry() : null;
    if (entry?.isDirectory) {
      entries.push(entry);
      continue;
    }
    // A top-level file is taken as the item's File: that works for scripted drops too, whose entries (if
    // any) cannot be read.
    const file = item.getAsFile();
    if (file) loose.push(file);
    else if (entry?.isFile) entries.push(entry);
  }
  if (items.length === 0) loose.push(...Array.from(dt.files ?? []));
  return (async () => {
    const out: Picked = { files: loose.map((file) => ({ file, relativePath: file.name })), dirs: [] };
    for (const entry of entries) await walk(entry, '', out);
    return out;
  })();
}

async function walk(entry: FileSystemEntry, prefix: string, out: Picked): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.files.push({ file, relativePath: prefix + entry.name });
    return;
  }
  if (!entry.isDirectory) return;
  const dir = prefix + entry.name;
  out.dirs.push(dir);
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // readEntries answers in batches (100 in Chromium) and an empty batch at the end.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) break;
    for (const child of batch) await walk(child, `${dir}/`, out);
  }
}

/** True when a drag carries files from outside the page (not, e.g., selected text). */
export function isFileDrag(dt: DataTransfer | null): boolean {
  return Boolean(dt && Array.from(dt.types ?? []).includes('Files'));
}
