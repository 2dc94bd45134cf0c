import { execFileSync } from 'node:child_process';
import { ErrorCode, type TemplateParam } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors';
import { placeholders, renderTemplate, shellQuote, validateTemplate } from './template-render';

const HOME = '/data/centers/a/home/szu0001';

const params: TemplateParam[] = [
  { name: 'title', label: '标题', type: 'text', required: true },
  { name: 'n', label: '样本数', type: 'number', required: true, default: 1000, min: 1, max: 1e6 },
  { name: 'mode', label: '模式', type: 'select', required: true, options: ['fast', 'exact'], default: 'fast' },
  { name: 'out', label: '输出目录', type: 'path', required: false },
];
const script = '#!/bin/bash\necho {{title}} {{ n }} {{mode}}\nls {{out}}\n';

function fails(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected an AppError');
}

describe('renderTemplate', () => {
  it('puts in given values and defaults: text and paths quoted, numbers and selects as they are', () => {
    const r = renderTemplate(script, params, { title: "it's $HOME `x`", out: 'results/run 1' }, HOME);
    expect(r.script).toBe(`#!/bin/bash\necho 'it'\\''s $HOME \`x\`' 1000 fast\nls '${HOME}/results/run 1'\n`);
    expect(r.values).toEqual({ title: "it's $HOME `x`", n: 1000, mode: 'fast', out: '/results/run 1' });
  });

  it('a quoted text reaches bash as exactly the text (no expansion, no second command)', () => {
    const evil = `a'; echo pwned; '$(id)\n"b"`;
    const r = renderTemplate('#!/bin/bash\nprintf %s {{title}}\n', [params[0]], { title: evil }, HOME);
    expect(execFileSync('bash', ['-c', r.script], { encoding: 'utf8' })).toBe(evil);
  });

  it('numbers may come as text from the form and are checked against the range (2101 naming the field)', () => {
    expect(renderTemplate(script, params, { title: 't', n: '42' }, HOME).values.n).toBe(42);
    for (const n of [0, 1e7, 'ten', '1; rm -rf /']) {
      const e = fails(() => renderTemplate(script, params, { title: 't', n }, HOME));
      expect(e.code).toBe(ErrorCode.TEMPLATE_PARAM_INVALID);
      expect(e.message).toContain('params.n');
    }
  });

  it('a select value must be one of the options', () => {
    const e = fails(() => renderTemplate(script, params, { title: 't', mode: 'fast; id' }, HOME));
    expect(e.code).toBe(ErrorCode.TEMPLATE_PARAM_INVALID);
    expect(e.message).toContain('params.mode');
  });

  it('paths stay inside the home: `..` is 1308, a leading / means the home', () => {
    expect(fails(() => renderTemplate(script, params, { title: 't', out: '../szu0002' }, HOME)).code).toBe(ErrorCode.ILLEGAL_PATH);
    expect(fails(() => renderTemplate(script, params, { title: 't', out: 'a/../../etc' }, HOME)).code).toBe(ErrorCode.ILLEGAL_PATH);
    expect(renderTemplate(script, params, { title: 't', out: '/etc/passwd' }, HOME).script).toContain(`'${HOME}/etc/passwd'`);
    expect(renderTemplate(script, params, { title: 't', out: '/' }, HOME).script).toContain(`ls '${HOME}'`);
  });

  it('a required parameter without a value is 1005 naming it; an optional one renders empty', () => {
    const e = fails(() => renderTemplate(script, params, { title: '  ' }, HOME));
    expect(e.code).toBe(ErrorCode.PARAM_INVALID);
    expect(e.message).toContain('params.title');
    expect(renderTemplate(script, params, { title: 'x' }, HOME).script).toContain("ls ''\n");
  });

  it('a value for a parameter the template does not have is refused', () => {
    const e = fails(() => renderTemplate(script, params, { title: 'x', other: 1 }, HOME));
    expect(e.code).toBe(ErrorCode.TEMPLATE_PARAM_INVALID);
    expect(e.message).toContain('other');
  });
});

describe('validateTemplate', () => {
  const ok = { name: 'T', script, params };
  const field = (t: Parameters<typeof validateTemplate>[0]) => {
    const e = fails(() => validateTemplate(t));
    expect(e.code).toBe(ErrorCode.PARAM_INVALID);
    return e.message;
  };

  it('accepts a consistent template', () => {
    expect(() => validateTemplate(ok)).not.toThrow();
    expect(placeholders(script)).toEqual(['title', 'n', 'mode', 'out']);
  });

  it('names the field of each broken rule', () => {
    expect(field({ ...ok, script: 'echo hi' })).toContain('script');
    expect(field({ ...ok, script: `${script}echo {{missing}}\n` })).toMatch(/script .*\{\{missing\}\}/);
    expect(field({ ...ok, params: [...params, { ...params[0] }] })).toContain('params[4].name');
    expect(field({ ...ok, params: [params[0], params[1], { ...params[2], options: [] }, params[3]] })).toContain('params[2].options');
    expect(field({ ...ok, params: [params[0], params[1], { ...params[2], default: 'slow' }, params[3]] })).toContain('params[2].default');
    expect(field({ ...ok, params: [params[0], { ...params[1], default: 0 }, params[2], params[3]] })).toContain('params[1].default');
    expect(field({ ...ok, params: [params[0], { ...params[1], min: 10, max: 1 }, params[2], params[3]] })).toContain('params[1].min');
    expect(field({ ...ok, params: [params[0], params[1], params[2], { ...params[3], default: '../x' }] })).toContain('params[3].default');
  });

  it('shellQuote survives every quote', () => {
    expect(shellQuote("a'b")).toBe(`'a'\\''b'`);
  });
});
