import { useSyncExternalStore } from 'react';

const canMatch = () => typeof window !== 'undefined' && typeof window.matchMedia === 'function';

/** Calls `onChange` whenever one of the media queries starts or stops matching; returns the unsubscribe. */
export function subscribeMedia(queries: readonly string[], onChange: () => void): () => void {
  if (!canMatch()) return () => {};
  const lists = queries.map((q) => window.matchMedia(q));
  lists.forEach((l) => l.addEventListener?.('change', onChange));
  return () => lists.forEach((l) => l.removeEventListener?.('change', onChange));
}

/** Whether the media query matches now (false where there is no window, as in a server render). */
function matchesMedia(query: string): boolean {
  return canMatch() && window.matchMedia(query).matches;
}

/** Whether the media query matches, following it while the page is open. */
export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (onChange) => subscribeMedia([query], onChange),
    () => matchesMedia(query),
    () => false,
  );
}
