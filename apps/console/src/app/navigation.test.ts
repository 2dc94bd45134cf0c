import { describe, expect, it } from 'vitest';
import { currentAppPath, loginPathFor, safeRedirect } from './navigation';

describe('redirect handling', () => {
  it('accepts paths inside the app', () => {
    expect(safeRedirect('/message?page=2')).toBe('/message?page=2');
    expect(safeRedirect('/login/edit')).toBe('/login/edit');
  });

  it.each([null, '', 'https://evil.example.com', '//evil.example.com', '/\\evil', 'message', '/login', '/login?redirect=/x', '/login/register'])(
    'refuses %s',
    (value) => {
      expect(safeRedirect(value)).toBe('/');
    },
  );

  it('builds the login path with the return URL', () => {
    expect(loginPathFor('/user-center')).toBe('/login?redirect=%2Fuser-center');
    expect(loginPathFor('/')).toBe('/login');
  });

  it('reads the current path relative to /console', () => {
    window.history.replaceState(null, '', '/console/training/detail/train/1?tab=log#top');
    expect(currentAppPath()).toBe('/training/detail/train/1?tab=log#top');
    window.history.replaceState(null, '', '/');
  });
});
