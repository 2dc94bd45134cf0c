import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPlatformTemplates } from './platform-templates';
import { renderTemplate } from './template-render';

const shipped = path.resolve(import.meta.dirname, '../../../../../config/slurm-templates');

describe('platform templates', () => {
  it('the shipped ones load, are read-only platform templates and render with their defaults', () => {
    const ts = loadPlatformTemplates(shipped);
    expect(ts.map((t) => t.id)).toEqual(['platform-lammps-melt', 'platform-mpi-pi', 'platform-numpy-pi']);
    for (const t of ts) {
      expect(t.source).toBe('platform');
      expect(t.name).not.toBe('');
      expect(t.params.length).toBeGreaterThan(0);
      const r = renderTemplate(t.script, t.params, {}, '/home/u1');
      expect(r.script).not.toMatch(/\{\{/);
    }
  });

  it('a broken file stops the start, naming the file and the field', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-tpl-'));
    try {
      fs.writeFileSync(path.join(dir, 'bad.yaml'), 'name: x\nscript: "#!/bin/bash\\necho {{n}}"\ndefaults: {}\n');
      expect(() => loadPlatformTemplates(dir)).toThrow(/bad\.yaml: .*script .*\{\{n\}\}/);
      fs.writeFileSync(path.join(dir, 'bad.yaml'), 'name: x\ndefaults: {}\n');
      expect(() => loadPlatformTemplates(dir)).toThrow(/bad\.yaml: \/script/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('no folder, no platform templates', () => {
    expect(loadPlatformTemplates('/nonexistent/slurm-templates')).toEqual([]);
  });
});
