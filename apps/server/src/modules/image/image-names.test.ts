import { describe, expect, it } from 'vitest';
import { namespaceOf, parseImageRef, repositoryNameProblem, tagProblem } from './image-names';

describe('image names', () => {
  it('namespace: the lowercase username, else an id form no username can take', () => {
    expect(namespaceOf('Alice_01', 'abc123')).toBe('alice_01');
    expect(namespaceOf('a__b', 'x1')).toBe('a__b');
    // Not a valid path component: the registry would refuse every push into it.
    expect(namespaceOf('_alice', 'abc123')).toBe('u-abc123');
    expect(namespaceOf('a___b', 'x1')).toBe('u-x1');
    // Reserved: a user named public must not own the operators' namespace.
    expect(namespaceOf('Public', 'x1')).toBe('u-x1');
    expect(namespaceOf('library', 'x1')).toBe('u-x1');
  });

  it('repository names follow the distribution spec', () => {
    for (const ok of ['app', 'my-app', 'my.app', 'my_app', 'team/app', 'a--b', 'a__b']) expect(repositoryNameProblem(ok), ok).toBeNull();
    for (const bad of ['', 'App', '-app', 'app-', 'a//b', '/app', 'a b', 'a:b', 'a___b', '中文', 'x'.repeat(65)]) expect(repositoryNameProblem(bad), bad).not.toBeNull();
  });

  it("tags as docker accepts them", () => {
    for (const ok of ['v1', 'latest', '2.3.1-cuda12.1', '_x', 'A.b']) expect(tagProblem(ok), ok).toBeNull();
    for (const bad of ['', '.x', '-x', 'a/b', 'a:b', 'x'.repeat(129)]) expect(tagProblem(bad), bad).not.toBeNull();
  });

  it('private image references', () => {
    expect(parseImageRef('alice/app:v1')).toEqual({ repository: 'alice/app', namespace: 'alice', tag: 'v1' });
    expect(parseImageRef('alice/team/app:latest')).toEqual({ repository: 'alice/team/app', namespace: 'alice', tag: 'latest' });
    for (const bad of ['pytorch-2.3-cuda12', 'alice/app', 'alice/App:v1', 'alice/app:-x', ':v1', 'registry:5000/alice/app']) expect(parseImageRef(bad), bad).toBeNull();
  });
});
