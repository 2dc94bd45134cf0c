/**
 * Hands a URL to the browser's download manager: a hidden `<a download>` click, so the page stays where it
 * is. `fileName` '' lets the server name the file (Content-Disposition).
 */
export function browserDownload(url: string, fileName = ''): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
}

/** Bytes the page already holds, saved as `fileName` through a short-lived object URL. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  try {
    browserDownload(url, fileName);
  } finally {
    // The click has started the save; the URL is not needed after this turn.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
