import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

export interface BuiltImage {
  /** The OCI image layout directory (`oci:<dir>:<tag>` for skopeo). */
  dir: string;
  tag: string;
  manifestDigest: string;
  /** Config plus layer bytes: what the registry stores and the console shows as the size. */
  sizeBytes: number;
  layerDigest: string;
  created: string;
}

const execFileP = promisify(execFile);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * An OCI image layout built without any container runtime (issue 11 criterion 3): one gzip layer made with
 * `tar` from a folder holding `files`, an image config naming its diff_id, the manifest and index.json, every
 * blob under its sha256.
 */
export function buildOciImage(dir: string, tag: string, files: Record<string, string>): BuiltImage {
  const work = `${dir}.work`;
  const rootfs = path.join(work, 'rootfs');
  fs.mkdirSync(rootfs, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(rootfs, name)), { recursive: true });
    fs.writeFileSync(path.join(rootfs, name), content);
  }
  const layerFile = path.join(work, 'layer.tar.gz');
  execFileSync('tar', ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', '--mtime=@0', '-czf', layerFile, '-C', rootfs, '.']);
  const layer = fs.readFileSync(layerFile);
  const created = new Date(Date.UTC(2026, 10, 1, 8, 0, 0)).toISOString();
  const config = Buffer.from(
    JSON.stringify({
      created,
      architecture: 'amd64',
      os: 'linux',
      config: { Cmd: ['/bin/sh', '-c', 'cat /hello.txt'] },
      rootfs: { type: 'layers', diff_ids: [`sha256:${sha256(zlib.gunzipSync(layer))}`] },
      history: [{ created, created_by: 'suanli test' }],
    }),
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: `sha256:${sha256(config)}`, size: config.length },
      layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: `sha256:${sha256(layer)}`, size: layer.length }],
    }),
  );
  const blobs = path.join(dir, 'blobs', 'sha256');
  fs.mkdirSync(blobs, { recursive: true });
  for (const b of [layer, config, manifest]) fs.writeFileSync(path.join(blobs, sha256(b)), b);
  fs.writeFileSync(path.join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  fs.writeFileSync(
    path.join(dir, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [{ mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: `sha256:${sha256(manifest)}`, size: manifest.length, annotations: { 'org.opencontainers.image.ref.name': tag } }],
    }),
  );
  fs.rmSync(work, { recursive: true, force: true });
  return { dir, tag, manifestDigest: `sha256:${sha256(manifest)}`, sizeBytes: config.length + layer.length, layerDigest: `sha256:${sha256(layer)}`, created };
}

/** The layout as an oci-archive (a tar of the layout directory, as `skopeo copy … oci-archive:` writes it). */
export function ociArchive(image: BuiltImage, file: string) {
  execFileSync('tar', ['-cf', file, '-C', image.dir, '.']);
}

/**
 * `skopeo` with its output; rejects (with stderr in the message) when it fails. Asynchronous: the registry
 * sends skopeo to the token endpoint of the gateway in this very process, which must keep serving.
 */
export async function skopeo(args: string[]): Promise<string> {
  try {
    const { stdout } = await execFileP('skopeo', ['--insecure-policy', ...args], { encoding: 'utf8', timeout: 60_000 });
    return stdout;
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`skopeo ${args[0]} failed: ${err.stderr || err.message}`);
  }
}
