import * as contracts from '@suanli/contracts';
import type { Route } from '@suanli/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness';
import { registerAndLogin } from '../../test/users';

/** Every `…Api` object of the contracts package: its route descriptors. */
const apis = Object.entries(contracts).filter(([name, v]) => name.endsWith('Api') && v && typeof v === 'object') as [string, Record<string, Route>][];

// Registration does not depend on the engine: SQLite only.
describe('the server registers every route descriptor of the contracts (issue 18 item 4)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
    await t.app.ready();
  });
  afterAll(() => t.close());

  it('finds each descriptor as a route with its method and full path', () => {
    expect(apis.length).toBeGreaterThan(0);
    for (const [name, api] of apis) {
      for (const [key, d] of Object.entries(api)) {
        // A file service's calls live under its own origin; the embedded default mounts each center's file
        // service in the gateway under /file-service/<center>.
        const url = d.base === contracts.FILE_API_PREFIX ? `/file-service/${t.app.ctx.centers[0].id}${d.base}${d.path}` : d.base + d.path;
        expect(t.app.hasRoute({ method: d.method, url }), `${name}.${key}: ${d.method} ${url}`).toBe(true);
      }
    }
  });

  it('answers a descriptor route as its schemas say: validation from the body schema, the envelope around data', async () => {
    const { token } = await registerAndLogin(t.app);
    const bad = JSON.parse((await t.app.inject({ method: 'POST', url: contracts.routeUrl(contracts.MessageApi.view), payload: { ids: [] }, headers: { token } })).body);
    expect(bad.message.code).toBe(contracts.ErrorCode.PARAM_INVALID);
    const count = JSON.parse((await t.app.inject({ method: 'POST', url: contracts.routeUrl(contracts.MessageApi.unviewCount), payload: {}, headers: { token } })).body);
    expect(count).toEqual({ message: { code: 0, message: expect.any(String) }, data: expect.any(Number) });
  });
});
