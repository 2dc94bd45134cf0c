import { act, render, screen } from '@testing-library/react';
import { ConfigProvider, theme } from 'antd';
import { useContext } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REDUCED_MOTION_QUERY } from './motion';
import { Providers } from './providers';

/** matchMedia answering the reduced-motion query with `reduce` (and no other query), its listeners kept for a change. */
function systemAsks(reduce: boolean) {
  const listeners = new Set<() => void>();
  const state = { reduce };
  vi.stubGlobal('matchMedia', (query: string) => ({
    get matches() {
      return query === REDUCED_MOTION_QUERY && state.reduce;
    },
    media: query,
    onchange: null,
    addEventListener: (_: string, l: () => void) => listeners.add(l),
    removeEventListener: (_: string, l: () => void) => listeners.delete(l),
    addListener: () => {},
    removeListener: () => {},
    dispatchEvent: () => false,
  }));
  return {
    change(next: boolean) {
      state.reduce = next;
      for (const l of listeners) l();
    },
  };
}

/** What the pages' antd components get from the app's ConfigProvider. */
function Probe() {
  const { token } = theme.useToken();
  const { wave } = useContext(ConfigProvider.ConfigContext);
  return <output data-testid="probe" data-motion={String(token.motion)} data-duration={token.motionDurationMid} data-wave-off={String(!!wave?.disabled)} />;
}

afterEach(() => vi.unstubAllGlobals());

describe('less motion when the user asked their system for it (prefers-reduced-motion)', () => {
  it('turns antd’s motion and click wave off', () => {
    systemAsks(true);
    render(
      <Providers>
        <Probe />
      </Providers>,
    );
    const probe = screen.getByTestId('probe');
    expect(probe.dataset.motion).toBe('false');
    expect(probe.dataset.duration).toBe('0s');
    expect(probe.dataset.waveOff).toBe('true');
  });

  it('keeps them by default, and follows the setting while the page is open', () => {
    const system = systemAsks(false);
    render(
      <Providers>
        <Probe />
      </Providers>,
    );
    const probe = screen.getByTestId('probe');
    expect(probe.dataset.motion).toBe('true');
    expect(probe.dataset.duration).not.toBe('0s');
    expect(probe.dataset.waveOff).toBe('false');
    act(() => system.change(true));
    // antd wraps the tree in its motion provider now, so the probe is a new element.
    const after = screen.getByTestId('probe');
    expect(after.dataset.motion).toBe('false');
    expect(after.dataset.waveOff).toBe('true');
  });
});
