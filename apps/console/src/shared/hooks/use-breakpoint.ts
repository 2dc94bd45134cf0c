import { BREAKPOINTS } from '@suanli/contracts';
import { useSyncExternalStore } from 'react';
import { subscribeMedia } from './use-media-query';

/**
 * The spec's breakpoints, including xxxl (≥ 2000 px) which antd's Grid does not know. Like antd's
 * `Grid.useBreakpoint`, each flag is true when the viewport is at least that wide (xs: at most 575 px).
 */
export type Breakpoint = keyof typeof BREAKPOINTS;
export type Screens = Record<Breakpoint, boolean>;

const QUERIES: Record<Breakpoint, string> = {
  xs: `(max-width: ${BREAKPOINTS.xs}px)`,
  sm: `(min-width: ${BREAKPOINTS.sm}px)`,
  md: `(min-width: ${BREAKPOINTS.md}px)`,
  lg: `(min-width: ${BREAKPOINTS.lg}px)`,
  xl: `(min-width: ${BREAKPOINTS.xl}px)`,
  xxl: `(min-width: ${BREAKPOINTS.xxl}px)`,
  xxxl: `(min-width: ${BREAKPOINTS.xxxl}px)`,
};
const NAMES = Object.keys(QUERIES) as Breakpoint[];

function read(): Screens {
  const screens = {} as Screens;
  for (const name of NAMES) screens[name] = window.matchMedia(QUERIES[name]).matches;
  return screens;
}

// useSyncExternalStore needs a stable snapshot: re-read only when a media query reports a change.
let snapshot: Screens | null = null;
let key = '';

function getSnapshot(): Screens {
  const next = read();
  const nextKey = NAMES.map((n) => (next[n] ? 1 : 0)).join('');
  if (!snapshot || nextKey !== key) {
    snapshot = next;
    key = nextKey;
  }
  return snapshot;
}

function subscribe(onChange: () => void): () => void {
  const unsubscribe = subscribeMedia(Object.values(QUERIES), onChange);
  window.addEventListener('resize', onChange);
  return () => {
    unsubscribe();
    window.removeEventListener('resize', onChange);
  };
}

export function useBreakpoint(): Screens {
  return useSyncExternalStore(subscribe, getSnapshot);
}

/** The header title shows only at xl, xxl and xxxl (console-spec §2). */
export function showsHeaderTitle(screens: Screens): boolean {
  return screens.xl || screens.xxl || screens.xxxl;
}
