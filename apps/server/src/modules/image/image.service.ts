import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import {
  ErrorCode,
  PUBLIC_IMAGE_NAMESPACE,
  WS_IMAGE_IMPORT_CHANGED,
  type ImageImport,
  type ImageImportCreate,
  type ImageItem,
  type ImageRepository as ImageRepo,
  type ImageTag,
  type RegistryCredential,
  type RegistryInfo,
} from '@suanli/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { CenterConfig } from '../../centers/centers';
import { AppError, forbidden, invalid } from '../../errors';
import { newId } from '../../lib/id';
import type { EventBus } from '../../realtime/bus';
import type { Principal } from '../access/principal';
import { hashPassword, verifyPassword } from '../user/password';
import type { UserDirectory } from '../user/user-directory';
import type { AccessService } from '../access/access.service';
import type { ArchiveFiles, OpenedArchive } from './archive-files';
import { ArchiveError, readImageArchive, type ImagePlan } from './image-archive';
import { namespaceOf, parseImageRef, repositoryNameProblem, tagProblem } from './image-names';
import { publishedItem } from './image-publication.service';
import type { ImageRepository, ImportRow } from './image.repository';
import type { RegistryClient } from './registry-client';
import { grant, parseScopes, signToken, type RegistryKey } from './registry-token';

/** Where the registry is and what the gateway signs its tokens as. */
export interface RegistrySettings {
  /** The registry's API base as the gateway reaches it (`http://127.0.0.1:5000`). */
  url: string;
  /** `host:port` users push to (shown in the console's commands). */
  address: string;
  service: string;
  issuer: string;
}

/** Registry tokens live this long; the registry asks again for each new operation. */
const TOKEN_TTL_SECONDS = 300;

/** Progress pushes of an import: at most one per this many ms. */
const PROGRESS_EVERY_MS = 500;
/** Share of an import's percent for reading the archive; the rest is pushing to the registry. */
const READ_SHARE = 40;
/** Tags per repository the task form's picker offers. */
const PICKER_TAGS_MAX = 20;

/** What the image module needs besides the registry: the user's files (imports), and where to say things. */
export interface ImageDeps {
  /** Login names of accounts (user module). */
  users: Pick<UserDirectory, 'username' | 'named'>;
  /** Who may push public images (the registry's login has no session: roles are read for it). */
  access: Pick<AccessService, 'can' | 'rolesOf' | 'found'>;
  archives: ArchiveFiles;
  centers: CenterConfig[];
  /** Where imports spool the archive's blobs while checking them (`<dataDir>/image-imports`). */
  spoolRoot: string;
  bus: EventBus;
  log: FastifyBaseLogger;
}


/**
 * 镜像 (ADR 0009): the token endpoint of the registry (who may pull and push what) and the console's view of
 * the caller's images. Without a configured registry every call answers 2401.
 */
export class ImageService {
  /** Imports running in this process (id → their run), for `idle()`. */
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly repo: ImageRepository,
    private readonly registry: { settings: RegistrySettings; key: RegistryKey; client: RegistryClient } | null,
    private readonly clock: () => number,
    private readonly deps: ImageDeps,
  ) {}

  private need() {
    if (!this.registry) throw new AppError(ErrorCode.REGISTRY_NOT_CONFIGURED);
    return this.registry;
  }

  private async namespace(p: Principal) {
    const username = await this.deps.users.username(p.userId);
    if (!username) throw forbidden();
    return { username, namespace: namespaceOf(username, p.userId) };
  }

  async info(p: Principal): Promise<RegistryInfo> {
    const r = this.need();
    const { username, namespace } = await this.namespace(p);
    return { address: r.settings.address, namespace, username, hasCredential: (await this.repo.credential(p.userId)) !== undefined };
  }

  /** A new registry password, shown this once (the old one stops working). */
  async resetCredential(p: Principal): Promise<RegistryCredential> {
    this.need();
    const { username } = await this.namespace(p);
    const password = randomBytes(18).toString('base64url');
    await this.repo.setCredential(p.userId, await hashPassword(password), this.clock());
    return { username, password };
  }

  /**
   * The Docker registry token endpoint: HTTP Basic with the username and registry password; the token grants
   * what was asked within the user's rights (grant()). Anonymous callers get a token without access.
   * Returns null for wrong credentials (the route answers 401).
   */
  async token(q: { service?: string; scope?: string | string[] }, authorization: string | undefined) {
    const r = this.need();
    let subject = '';
    let namespace = '';
    let mayPublish = false;
    if (authorization?.startsWith('Basic ')) {
      const decoded = Buffer.from(authorization.slice(6), 'base64').toString('utf8');
      const i = decoded.indexOf(':');
      const [user] = i > 0 ? await this.deps.users.named([decoded.slice(0, i)]) : [];
      // An unknown user is checked against a dummy hash: the same work as a wrong password.
      const hash = user && (await this.repo.credential(user.id))?.password_hash;
      if (!(await verifyPassword(hash, decoded.slice(i + 1))) || !user || user.status === 'disabled') return null;
      subject = user.username;
      namespace = namespaceOf(user.username, user.id);
      mayPublish = this.deps.access.can({ userId: user.id, roles: await this.deps.access.rolesOf(user.id) }, 'image.publish');
    }
    const asked = parseScopes(q.scope === undefined ? [] : Array.isArray(q.scope) ? q.scope : [q.scope]);
    const access = subject ? grant(namespace, asked, mayPublish) : [];
    const now = this.clock();
    const token = signToken(r.key, { issuer: r.settings.issuer, service: r.settings.service, subject, access, now, ttlSeconds: TOKEN_TTL_SECONDS });
    return { token, access_token: token, expires_in: TOKEN_TTL_SECONDS, issued_at: new Date(now).toISOString() };
  }

  /** The caller's repositories (`<namespace>/…`) with their tags. */
  async list(p: Principal): Promise<ImageRepo[]> {
    const r = this.need();
    const { namespace } = await this.namespace(p);
    const names = (await r.client.repositories()).filter((n) => n.startsWith(`${namespace}/`));
    const out: ImageRepo[] = [];
    for (const name of names) {
      const tags = await r.client.tags(name);
      if (!tags.length) continue;
      out.push({ name, tags: await Promise.all(tags.sort().map((t) => this.tag(name, t))) });
    }
    return out;
  }

  /** One repository of the caller's (1205-like 2403 when it has no tags or is not theirs). */
  async detail(p: Principal, name: string): Promise<ImageRepo> {
    const r = this.need();
    await this.ownRepo(p, name);
    const tags = await r.client.tags(name);
    if (!tags.length) throw new AppError(ErrorCode.IMAGE_NOT_FOUND);
    return { name, tags: await Promise.all(tags.sort().map((t) => this.tag(name, t))) };
  }

  /** Removes a tag: its manifest is deleted by digest (other tags on the same digest go with it). */
  async deleteTag(p: Principal, name: string, tag: string): Promise<null> {
    const r = this.need();
    await this.ownRepo(p, name);
    const m = await r.client.manifest(name, tag);
    await r.client.deleteManifest(name, m.digest);
    return null;
  }

  private async ownRepo(p: Principal, name: string) {
    const { namespace } = await this.namespace(p);
    if (!name.startsWith(`${namespace}/`)) throw new AppError(ErrorCode.IMAGE_NOT_FOUND);
  }

  private async tag(name: string, tag: string): Promise<ImageTag> {
    const r = this.need();
    const m = await r.client.manifest(name, tag);
    return {
      tag,
      digest: m.digest,
      sizeBytes: m.config.size + m.layers.reduce((n, l) => n + l.size, 0),
      layers: m.layers.length,
      created: await r.client.created(name, m.config.digest).catch(() => null),
      pullCommand: `docker pull ${r.settings.address}/${name}:${tag}`,
    };
  }

  // ---- the task form's image picker (ADR 0009 §6) ----------------------------------------------------------

  /**
   * The caller's private images, one item per tag, then the public images approved from users' requests
   * (`public/…`, issue 20 审核); none without a registry, only the approved ones while it is unreachable.
   */
  async privateCatalogue(p: Principal): Promise<ImageItem[]> {
    if (!this.registry) return [];
    const published = (await this.repo.approvedPublications()).map((r) => publishedItem(this.registry!.settings.address, r));
    try {
      const { namespace } = await this.namespace(p);
      const names = (await this.registry.client.repositories()).filter((n) => n.startsWith(`${namespace}/`));
      const perRepo = await Promise.all(names.map(async (name) => (await this.registry!.client.tags(name)).sort().slice(0, PICKER_TAGS_MAX).map((t) => this.itemOf(name, namespace, t))));
      return [...perRepo.flat(), ...published];
    } catch (e) {
      // The public catalogue still serves the form when the registry is down.
      this.deps.log.warn({ err: e }, 'private images unavailable for the task form');
      return published;
    }
  }

  /**
   * A private image of the caller's by its id (`<namespace>/<repository>:<tag>`), when the tag exists; or an
   * approved public image (`public/<namespace>/<repository>:<tag>`), for everyone.
   */
  async resolvePrivate(p: Principal, id: string): Promise<ImageItem | undefined> {
    const ref = parseImageRef(id);
    if (!ref || !this.registry) return undefined;
    if (ref.namespace === PUBLIC_IMAGE_NAMESPACE) {
      const approved = await this.repo.approvedTarget(id);
      return approved ? publishedItem(this.registry.settings.address, approved) : undefined;
    }
    const { namespace } = await this.namespace(p);
    if (ref.namespace !== namespace) return undefined;
    const tags = await this.registry.client.tags(ref.repository);
    return tags.includes(ref.tag) ? this.itemOf(ref.repository, namespace, ref.tag) : undefined;
  }

  /** What the task engine needs of a private image id: its name and pull reference (the id says it all, no I/O). */
  lookup(id: string): { name: string; uri: string } | undefined {
    if (!this.registry || !parseImageRef(id)) return undefined;
    return { name: id, uri: `docker://${this.registry.settings.address}/${id}` };
  }

  private itemOf(repository: string, namespace: string, tag: string): ImageItem {
    const id = `${repository}:${tag}`;
    return {
      id,
      name: id,
      framework: '',
      version: tag,
      accelerator: '',
      // Unknown for a user's own image: offered for every card type (its owner knows what it runs on).
      cardVendors: [],
      uri: `docker://${this.need().settings.address}/${id}`,
      description: '私有镜像',
      visibility: 'private',
      owner: namespace,
    };
  }

  // ---- import of an image archive from storage (ADR 0009 §5) -----------------------------------------------

  async startImport(p: Principal, body: ImageImportCreate): Promise<ImageImport> {
    this.need();
    const center = this.deps.centers.find((c) => c.id === body.subCenterId);
    if (!center) throw invalid('subCenterId', '算力分中心不存在');
    const repository = body.repository.trim();
    const nameProblem = repositoryNameProblem(repository);
    if (nameProblem) throw invalid('repository', nameProblem);
    const badTag = body.tag === undefined ? null : tagProblem(body.tag);
    if (badTag) throw invalid('tag', badTag);
    const { namespace } = await this.namespace(p);
    if ((await this.repo.runningImportsOf(p.userId)) > 0) throw new AppError(ErrorCode.IMAGE_IMPORT_BUSY);
    // Opened now: a missing file or a folder is a 1005 on `path` to the request, not a failed import later.
    const archive = await this.deps.archives.open(p.userId, center, body.path);
    const now = this.clock();
    const row: ImportRow = {
      id: newId(now),
      owner_id: p.userId,
      sub_center_id: center.id,
      path: `/${body.path.split('/').filter(Boolean).join('/')}`,
      repository: `${namespace}/${repository}`,
      tag: body.tag ?? '',
      format: '',
      state: 'running',
      percent: 0,
      message: '正在读取镜像文件',
      digest: '',
      create_time: now,
      update_time: now,
    };
    try {
      await this.repo.insertImport(row);
    } catch (e) {
      archive.close();
      throw e;
    }
    const run = this.runImport(p.userId, row, archive).finally(() => this.running.delete(row.id));
    this.running.set(row.id, run);
    return toImport(row);
  }

  async getImport(p: Principal, id: string): Promise<ImageImport> {
    this.need();
    const row = this.deps.access.found(p, 'image.import.read', await this.repo.findImport(id), (r) => ({ ownerId: r.owner_id }), '导入任务');
    return toImport(row);
  }

  /**
   * Reads and checks the whole archive first (spooled to the gateway's disk, every digest verified), then
   * pushes the blobs, then the manifest under the tag: an invalid archive pushes nothing, and a failure while
   * pushing leaves at most unreferenced blobs (never a tag), which the registry's garbage collection removes.
   */
  private async runImport(userId: string, row: ImportRow, archive: OpenedArchive): Promise<void> {
    const { client } = this.need();
    let read = 0;
    let pushed = 0;
    let pushTotal = 1;
    let lastPush = 0;
    const current = { ...row };
    const percent = () => Math.min(99, Math.floor((READ_SHARE * read) / Math.max(1, archive.size) + ((100 - READ_SHARE) * pushed) / pushTotal));
    // Saves and pushes run one after another: a late progress write never lands after the final state.
    let chain = Promise.resolve();
    const publish = (force: boolean, set: Partial<ImportRow> = {}): Promise<void> => {
      Object.assign(current, set, { percent: set.percent ?? (current.state === 'running' ? percent() : current.percent), update_time: this.clock() });
      const now = Date.now();
      if (!force && now - lastPush < PROGRESS_EVERY_MS) return chain;
      lastPush = now;
      const { id: _id, ...fields } = { ...current };
      const event = toImport(current);
      chain = chain
        .then(async () => {
          await this.repo.updateImport(row.id, fields);
          await this.deps.bus.publish(userId, { businessType: WS_IMAGE_IMPORT_CHANGED, data: event });
        })
        .catch((err: unknown) => this.deps.log.error({ err, importId: row.id }, 'image import progress not saved'));
      return chain;
    };
    let spool: string | undefined;
    try {
      await fsp.mkdir(this.deps.spoolRoot, { recursive: true, mode: 0o700 });
      spool = await fsp.mkdtemp(path.join(this.deps.spoolRoot, `${row.id}-`));
      let plan: ImagePlan;
      try {
        plan = await readImageArchive(archive.stream, spool, row.tag || undefined, (n) => {
          read += n;
          void publish(false);
        });
      } finally {
        archive.close();
      }
      const tag = row.tag || plan.archiveTag || 'latest';
      const blobs = [plan.config, ...plan.layers];
      pushTotal = Math.max(1, blobs.reduce((n, b) => n + b.size, 0));
      read = archive.size;
      await publish(true, { format: plan.format, tag, message: '正在推送到镜像仓库' });
      for (const b of blobs) {
        if (await client.blobExists(row.repository, b.digest)) pushed += b.size;
        else await client.uploadBlob(row.repository, b.digest, b.file, b.size, (n) => ((pushed += n), void publish(false)));
      }
      const digest = await client.putManifest(row.repository, tag, plan.manifestMediaType, plan.manifest);
      await publish(true, { state: 'succeeded', percent: 100, message: `已导入 ${row.repository}:${tag}`, digest });
    } catch (e) {
      const message = e instanceof ArchiveError ? `镜像文件无效：${e.message}` : e instanceof AppError ? e.message : '导入失败，请稍后重试';
      if (!(e instanceof ArchiveError) && !(e instanceof AppError)) this.deps.log.error({ err: e, importId: row.id }, 'image import failed');
      await publish(true, { state: 'failed', message });
    } finally {
      // Not read at all when the spool could not be made: let the file (or the file service's answer) go.
      archive.close();
      if (spool) await fsp.rm(spool, { recursive: true, force: true });
    }
  }

  /** Imports a stopped gateway left running are failed before serving (their spool went with the process). */
  async recover(): Promise<void> {
    await this.repo.failRunningImports('导入因服务重启而中断，请重新导入', this.clock());
    // Spools a crash left behind; only old ones, since another gateway on this data dir may be importing now.
    const entries = await fsp.readdir(this.deps.spoolRoot).catch(() => [] as string[]);
    for (const name of entries) {
      const dir = path.join(this.deps.spoolRoot, name);
      const st = await fsp.stat(dir).catch(() => null);
      if (st && Date.now() - st.mtimeMs > 24 * 3600_000) await fsp.rm(dir, { recursive: true, force: true });
    }
  }

  /** Resolves when no import runs (tests; shutdown). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running.values()]);
  }
}

function toImport(r: ImportRow): ImageImport {
  return {
    id: r.id,
    subCenterId: r.sub_center_id,
    path: r.path,
    repository: r.repository,
    tag: r.tag,
    format: r.format,
    state: r.state === 'succeeded' || r.state === 'failed' ? r.state : 'running',
    percent: Number(r.percent),
    message: r.message,
    digest: r.digest,
    createTime: Number(r.create_time),
    updateTime: Number(r.update_time),
  };
}
