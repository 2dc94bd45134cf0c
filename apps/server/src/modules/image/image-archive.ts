import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { ImageArchiveFormat } from '@suanli/contracts';
import { tagProblem } from './image-names';
import { readTar, TarError } from './tar-reader';

/** Thrown for an archive that is not a valid image; the message (Chinese) names what is wrong. */
export class ArchiveError extends Error {}

/** A blob of the image, spooled to a file and checked against its digest. */
export interface SpooledBlob {
  digest: string;
  size: number;
  mediaType: string;
  file: string;
}

/** What is pushed: blobs first, then the manifest under the tag. */
export interface ImagePlan {
  format: ImageArchiveFormat;
  /** The tag the archive names for itself (RepoTags / ref.name), if any. */
  archiveTag?: string;
  config: SpooledBlob;
  layers: SpooledBlob[];
  manifestMediaType: string;
  manifest: Buffer;
}

interface Spooled {
  file: string;
  size: number;
  sha256: string;
}

/** Manifest media types of the two archive kinds. */
export const MEDIA = {
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
} as const;

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: { architecture?: string; os?: string };
  annotations?: Record<string, string>;
}

interface ManifestJson {
  schemaVersion?: number;
  mediaType?: string;
  config?: Descriptor;
  layers?: Descriptor[];
  manifests?: Descriptor[];
}

const DOCKER_CONFIG = 'application/vnd.docker.container.image.v1+json';
const DOCKER_LAYER = 'application/vnd.docker.image.rootfs.diff.tar';
const DOCKER_LAYER_GZIP = 'application/vnd.docker.image.rootfs.diff.tar.gzip';
/** Entries an image archive may hold (a `docker save` of many images has a few per layer). */
const MAX_ENTRIES = 20_000;
/** JSON documents of the archive (manifests, index, configs) are read whole, so they are bounded. */
const MAX_JSON = 4 * 1024 * 1024;

/**
 * Reads an image archive — `docker save` (docker-archive) or an OCI image layout in a tar (oci-archive) —
 * into `spoolDir`, checking every blob's sha256 as it is written, and answers what to push. Nothing is
 * pushed here, so an invalid archive leaves nothing behind in the registry. `onBytes` counts archive bytes
 * read (progress).
 */
export async function readImageArchive(source: AsyncIterable<Buffer>, spoolDir: string, wantedTag: string | undefined, onBytes: (n: number) => void): Promise<ImagePlan> {
  const files = new Map<string, Spooled>();
  const links = new Map<string, string>();
  let n = 0;
  const counted = (async function* () {
    for await (const c of source) {
      onBytes(c.length);
      yield c as Buffer;
    }
  })();
  try {
    await readTar(counted, async (e, body) => {
      if (++n > MAX_ENTRIES) throw new ArchiveError(`条目过多（超过 ${MAX_ENTRIES} 个），不是镜像文件`);
      if (e.type === 'symlink' || e.type === 'hardlink') {
        links.set(e.name, e.type === 'symlink' ? path.posix.normalize(path.posix.join(path.posix.dirname(e.name), e.linkname)) : e.linkname.replace(/^\.\//, ''));
        return;
      }
      if (e.type !== 'file') return;
      // Spooled under a number, never under the archive's own name: no path from the archive reaches the disk.
      const file = path.join(spoolDir, String(n));
      const hash = createHash('sha256');
      let size = 0;
      const hashed = (async function* () {
        for await (const c of body) {
          hash.update(c);
          size += c.length;
          yield c;
        }
      })();
      await pipeline(Readable.from(hashed), fs.createWriteStream(file, { flags: 'wx', mode: 0o600 }));
      files.set(e.name, { file, size, sha256: hash.digest('hex') });
    });
  } catch (e) {
    if (e instanceof TarError) throw new ArchiveError(e.message);
    throw e;
  }
  const find = (name: string): Spooled | undefined => {
    let p = path.posix.normalize(name.replace(/^\.\//, ''));
    for (let hops = 0; hops < 8; hops++) {
      const f = files.get(p);
      if (f) return f;
      const next = links.get(p);
      if (!next) return undefined;
      p = next;
    }
    return undefined;
  };
  if (find('oci-layout') && find('index.json')) return ociPlan(find, wantedTag);
  if (find('manifest.json')) return dockerPlan(find, wantedTag);
  throw new ArchiveError('未找到 manifest.json（docker save 的镜像）或 oci-layout 与 index.json（OCI 镜像），不是镜像文件');
}

async function readJson<T>(f: Spooled, what: string): Promise<T> {
  if (f.size > MAX_JSON) throw new ArchiveError(`${what} 过大`);
  try {
    return JSON.parse(await fsp.readFile(f.file, 'utf8')) as T;
  } catch {
    throw new ArchiveError(`${what} 不是有效的 JSON`);
  }
}

async function isGzip(file: string): Promise<boolean> {
  const fh = await fsp.open(file, 'r');
  try {
    const b = Buffer.alloc(2);
    const { bytesRead } = await fh.read(b, 0, 2, 0);
    return bytesRead === 2 && b[0] === 0x1f && b[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

const validTag = (t: string | undefined) => (t && !tagProblem(t) ? t : undefined);

// ---- docker save -------------------------------------------------------------------------------------------

interface DockerEntry {
  Config?: unknown;
  RepoTags?: unknown;
  Layers?: unknown;
}

async function dockerPlan(find: (n: string) => Spooled | undefined, wantedTag: string | undefined): Promise<ImagePlan> {
  const list = await readJson<unknown>(find('manifest.json')!, 'manifest.json');
  if (!Array.isArray(list) || list.length === 0) throw new ArchiveError('manifest.json 中没有镜像');
  const entries = list as DockerEntry[];
  const tagOf = (e: DockerEntry) => (Array.isArray(e.RepoTags) && typeof e.RepoTags[0] === 'string' ? validTag(e.RepoTags[0].slice(e.RepoTags[0].lastIndexOf(':') + 1)) : undefined);
  const entry = entries.find((e) => wantedTag && Array.isArray(e.RepoTags) && e.RepoTags.some((t) => typeof t === 'string' && t.endsWith(`:${wantedTag}`))) ?? entries[0];
  if (typeof entry.Config !== 'string') throw new ArchiveError('manifest.json 缺少 Config');
  if (!Array.isArray(entry.Layers) || entry.Layers.length === 0 || entry.Layers.some((l) => typeof l !== 'string')) throw new ArchiveError('manifest.json 缺少 Layers');
  const configFile = find(entry.Config);
  if (!configFile) throw new ArchiveError(`镜像配置 ${entry.Config} 不在文件中`);
  const config = await readJson<{ rootfs?: { diff_ids?: unknown } }>(configFile, `镜像配置 ${entry.Config}`);
  const diffIds = config.rootfs?.diff_ids;
  if (!Array.isArray(diffIds)) throw new ArchiveError(`镜像配置 ${entry.Config} 缺少 rootfs.diff_ids`);
  if (diffIds.length !== entry.Layers.length) throw new ArchiveError(`镜像配置中的 rootfs.diff_ids（${diffIds.length} 个）与层数（${entry.Layers.length} 个）不符`);
  const layers: SpooledBlob[] = [];
  for (const [i, name] of (entry.Layers as string[]).entries()) {
    const f = find(name);
    if (!f) throw new ArchiveError(`镜像层 ${name} 不在文件中`);
    const gzip = await isGzip(f.file);
    // An uncompressed layer's sha256 is its diff_id: a damaged layer is caught here.
    if (!gzip && diffIds[i] !== `sha256:${f.sha256}`) throw new ArchiveError(`镜像层 ${name} 的摘要与镜像配置不符（文件已损坏）`);
    layers.push({ digest: `sha256:${f.sha256}`, size: f.size, mediaType: gzip ? DOCKER_LAYER_GZIP : DOCKER_LAYER, file: f.file });
  }
  const configBlob: SpooledBlob = { digest: `sha256:${configFile.sha256}`, size: configFile.size, mediaType: DOCKER_CONFIG, file: configFile.file };
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA.dockerManifest,
      config: { mediaType: DOCKER_CONFIG, size: configBlob.size, digest: configBlob.digest },
      layers: layers.map((l) => ({ mediaType: l.mediaType, size: l.size, digest: l.digest })),
    }),
  );
  return { format: 'docker-archive', archiveTag: tagOf(entry), config: configBlob, layers, manifestMediaType: MEDIA.dockerManifest, manifest };
}

// ---- OCI image layout --------------------------------------------------------------------------------------

async function ociPlan(find: (n: string) => Spooled | undefined, wantedTag: string | undefined): Promise<ImagePlan> {
  const layout = await readJson<{ imageLayoutVersion?: unknown }>(find('oci-layout')!, 'oci-layout');
  if (typeof layout.imageLayoutVersion !== 'string' || !layout.imageLayoutVersion.startsWith('1.')) throw new ArchiveError('oci-layout 的 imageLayoutVersion 不是 1.x');
  /** A blob named by a descriptor: present, sha256, and its bytes match the digest and size. */
  const blob = (d: Descriptor | undefined, what: string): Spooled => {
    if (!d || typeof d.digest !== 'string' || typeof d.size !== 'number') throw new ArchiveError(`${what} 的描述不完整（缺少 digest 或 size）`);
    const m = /^sha256:([a-f0-9]{64})$/.exec(d.digest);
    if (!m) throw new ArchiveError(`${what} 的摘要 ${d.digest} 不是 sha256`);
    const f = find(`blobs/sha256/${m[1]}`);
    if (!f) throw new ArchiveError(`${what}（${d.digest}）不在文件中`);
    if (f.sha256 !== m[1]) throw new ArchiveError(`blobs/sha256/${m[1]} 的内容与摘要不符（文件已损坏）`);
    if (f.size !== d.size) throw new ArchiveError(`${what}（${d.digest}）的大小与描述不符`);
    return f;
  };
  const index = await readJson<ManifestJson>(find('index.json')!, 'index.json');
  if (!Array.isArray(index.manifests) || index.manifests.length === 0) throw new ArchiveError('index.json 中没有镜像');
  const refOf = (d: Descriptor) => d.annotations?.['org.opencontainers.image.ref.name'];
  let desc = index.manifests.find((d) => wantedTag && refOf(d) === wantedTag) ?? index.manifests[0];
  const archiveTag = validTag(refOf(desc));
  let json = await readJson<ManifestJson>(blob(desc, '镜像清单'), '镜像清单');
  // A multi-platform index: the linux/amd64 image (or the first), pushed as a single-platform image.
  if (desc.mediaType === MEDIA.ociIndex || desc.mediaType === MEDIA.dockerList || Array.isArray(json.manifests)) {
    const children = json.manifests ?? [];
    desc = children.find((d) => d.platform?.os === 'linux' && d.platform.architecture === 'amd64') ?? children[0];
    if (!desc) throw new ArchiveError('镜像索引中没有镜像');
    json = await readJson<ManifestJson>(blob(desc, '镜像清单'), '镜像清单');
  }
  const mediaType = json.mediaType ?? desc.mediaType ?? MEDIA.ociManifest;
  if (mediaType !== MEDIA.ociManifest && mediaType !== MEDIA.dockerManifest) throw new ArchiveError(`不支持的镜像清单类型 ${mediaType}`);
  if (json.schemaVersion !== 2) throw new ArchiveError('镜像清单的 schemaVersion 不是 2');
  if (!Array.isArray(json.layers)) throw new ArchiveError('镜像清单缺少 layers');
  const cfg = blob(json.config, '镜像配置');
  const layers = json.layers.map((l, i) => {
    const f = blob(l, `第 ${i + 1} 层`);
    return { digest: l.digest, size: f.size, mediaType: l.mediaType, file: f.file };
  });
  const manifestFile = blob(desc, '镜像清单');
  return {
    format: 'oci-archive',
    archiveTag,
    config: { digest: json.config!.digest, size: cfg.size, mediaType: json.config!.mediaType, file: cfg.file },
    layers,
    manifestMediaType: mediaType,
    // The manifest's own bytes: its digest stays what the archive says.
    manifest: await fsp.readFile(manifestFile.file),
  };
}
