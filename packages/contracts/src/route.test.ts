import { describe, expect, it } from 'vitest';
import { MessageApi } from './message';
import { route, routeUrl } from './route';

describe('route descriptors', () => {
  it('build the URL from the base and the path, parameters filled in and encoded', () => {
    const detail = route<{ response: never }>('GET', '/gateway/x/api/v1', '/orders/:id/items/:n');
    expect(routeUrl(detail, { id: 'a/b c', n: 3 })).toBe('/gateway/x/api/v1/orders/a%2Fb%20c/items/3');
    expect(routeUrl(MessageApi.view)).toBe('/gateway/foundation/api/v1/message/view');
  });

  it('refuse a call that leaves a parameter out', () => {
    const detail = route<{ response: never }>('GET', '/b', '/orders/:id');
    expect(() => routeUrl(detail, {})).toThrow('parameter id missing');
  });

  it('carry the access rule, and no schema values (the console bundles descriptors, not TypeBox)', () => {
    expect(route('POST', '/b', '/x', { role: 'operator' })).toEqual({ method: 'POST', base: '/b', path: '/x', role: 'operator' });
    expect(Object.keys(MessageApi.query)).toEqual(['method', 'base', 'path']);
  });
});
