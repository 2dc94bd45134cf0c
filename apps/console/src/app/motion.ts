import type { ThemeConfig } from 'antd';
import { useMediaQuery } from '../shared/hooks/use-media-query';

/**
 * Less motion when the user asked their system for it (`prefers-reduced-motion: reduce`, an accessibility
 * setting of every desktop and phone OS): antd's motion is off (its ConfigProvider token `motion: false` —
 * dialogs, dropdowns, toasts, tabs and menus appear and leave at once) and so is its click wave; our own CSS
 * modules drop their transitions and decorative animations in the same media query (loading spinners keep
 * turning: they say that something is still loading). The e2e journeys' browsers ask for it too
 * (e2e/support/env.ts), which spares Chromium the frames of every animation (issue 26).
 */
export const REDUCED_MOTION_QUERY = '(prefers-reduced-motion: reduce)';

/** Whether the user asked for less motion, following the setting while the page is open. */
export const useReducedMotion = (): boolean => useMediaQuery(REDUCED_MOTION_QUERY);

/** The theme as given, or with antd's motion off when the user asked for less motion. */
export function withMotion(theme: ThemeConfig, reduced: boolean): ThemeConfig {
  return reduced ? { ...theme, token: { ...theme.token, motion: false } } : theme;
}
