import { describe, expect, it } from 'vitest';
import { loadConfig } from './config';

describe('loadConfig: LOCAL_SHELL', () => {
  it('is off by default, also on a gateway listening on loopback', () => {
    expect(loadConfig({}).shell?.local).toBe(false);
    expect(loadConfig({ HOST: '127.0.0.1' }).shell?.local).toBe(false);
    expect(loadConfig({ HOST: 'localhost', LOCAL_SHELL: '' }).shell?.local).toBe(false);
    expect(loadConfig({ HOST: '127.0.0.1', LOCAL_SHELL: 'false' }).shell?.local).toBe(false);
  });

  it('is on only when set to true, whatever the address', () => {
    expect(loadConfig({ LOCAL_SHELL: 'true' }).shell?.local).toBe(true);
    expect(loadConfig({ HOST: '127.0.0.1', LOCAL_SHELL: 'true' }).shell?.local).toBe(true);
  });

  it('refuses a value that is neither true nor false instead of guessing', () => {
    expect(() => loadConfig({ LOCAL_SHELL: 'yes' })).toThrow('LOCAL_SHELL must be true or false');
    expect(() => loadConfig({ LOCAL_SHELL: '1' })).toThrow('LOCAL_SHELL must be true or false');
  });
});
