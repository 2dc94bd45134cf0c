import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { grant, libtrustKeyId, parseScopes } from './registry-token';

describe('registry token rules', () => {
  it('grants pull, push and delete in the own namespace, pull in public, nothing elsewhere', () => {
    const asked = parseScopes(['repository:alice/demo:pull,push', 'repository:bob/demo:pull', 'repository:public/base:pull,push', 'repository:alice:pull', 'registry:catalog:*']);
    expect(grant('alice', asked)).toEqual([
      { type: 'repository', name: 'alice/demo', actions: ['pull', 'push'] },
      { type: 'repository', name: 'public/base', actions: ['pull'] },
    ]);
    expect(grant('bob', parseScopes(['repository:alice/demo:pull,push,delete']))).toEqual([]);
    // Operators publish the public images.
    expect(grant('ops', parseScopes(['repository:public/base:pull,push,delete']), true)).toEqual([{ type: 'repository', name: 'public/base', actions: ['pull', 'push'] }]);
  });

  it('reads scopes whose name holds a port-less registry path and several actions', () => {
    expect(parseScopes(['repository:alice/a/b:pull,push'])).toEqual([{ type: 'repository', name: 'alice/a/b', actions: ['pull', 'push'] }]);
    expect(parseScopes(['nonsense'])).toEqual([]);
  });

  it('key ids have libtrust\'s shape: 12 groups of 4 base32 characters', () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect(libtrustKeyId(publicKey)).toMatch(/^([A-Z2-7]{4}:){11}[A-Z2-7]{4}$/);
  });
});
