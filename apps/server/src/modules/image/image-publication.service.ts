import { ErrorCode, PUBLIC_IMAGE_NAMESPACE, type ImageItem, type ImagePublication, type ImagePublicationCreate } from '@suanli/contracts';
import type { Notify } from '../../context';
import { AppError, forbidden, invalid, notFound } from '../../errors';
import { newId } from '../../lib/id';
import type { AccessService } from '../access/access.service';
import type { Principal } from '../access/principal';
import type { AuditTrail } from '../audit/audit.service';
import type { UserDirectory } from '../user/user-directory';
import { namespaceOf, parseImageRef } from './image-names';
import type { ImageRepository, PublicationRow } from './image.repository';
import type { RegistryClient } from './registry-client';

/**
 * Public images on request (issue 20 审核): an owner asks for one of their tags to be public; an operator
 * approves — the registry copies exactly the digest asked for to `public/<namespace>/<repository>:<tag>`
 * (the operators' namespace every user may pull, ADR 0009), and the image joins the public images of the
 * task form — or rejects with a reason. Each decision is an audited operator action (`image.review`) and the
 * owner gets a message. The copy is the platform's: the owner deleting or re-pushing their tag later does not
 * change what was approved.
 */
export class ImagePublicationService {
  constructor(
    private readonly repo: ImageRepository,
    private readonly registry: RegistryClient | null,
    private readonly clock: () => number,
    private readonly deps: {
      users: Pick<UserDirectory, 'username' | 'names'>;
      access: Pick<AccessService, 'require'>;
      audit: AuditTrail;
      notify: Notify;
    },
  ) {}

  private need(): RegistryClient {
    if (!this.registry) throw new AppError(ErrorCode.REGISTRY_NOT_CONFIGURED);
    return this.registry;
  }

  /** Asks for the tag `name:tag` of the caller's own to become public: 2403 when it is not theirs or has no such tag, 2405 while one is pending. */
  async request(p: Principal, body: ImagePublicationCreate): Promise<ImagePublication> {
    const registry = this.need();
    const username = await this.deps.users.username(p.userId);
    if (!username) throw forbidden();
    const ref = parseImageRef(`${body.name}:${body.tag}`);
    if (!ref || ref.namespace !== namespaceOf(username, p.userId)) throw new AppError(ErrorCode.IMAGE_NOT_FOUND);
    const { digest } = await registry.manifest(ref.repository, ref.tag);
    const now = this.clock();
    const row: PublicationRow = {
      id: newId(now),
      owner_id: p.userId,
      source: `${ref.repository}:${ref.tag}`,
      digest,
      target: `${PUBLIC_IMAGE_NAMESPACE}/${ref.repository}:${ref.tag}`,
      state: 'pending',
      reason: '',
      create_time: now,
      review_time: null,
    };
    if (!(await this.repo.insertPublication(row))) throw new AppError(ErrorCode.IMAGE_PUBLICATION_PENDING);
    return (await this.view([row]))[0];
  }

  /** The caller's requests, newest first (the image page shows each tag's latest). */
  async mine(p: Principal): Promise<ImagePublication[]> {
    return this.view(await this.repo.publicationsOf(p.userId));
  }

  /** Requests waiting for an operator, oldest first. */
  async pending(p: Principal): Promise<ImagePublication[]> {
    this.deps.access.require(p, 'image.publish');
    return this.view(await this.repo.pendingPublications());
  }

  /**
   * An operator's decision. Approving copies the image in the registry first (a failure there answers 2402
   * and nothing is decided); then the state moves with its audit entry in one transaction. A request no
   * longer pending is 1205 with nothing written; a rejection needs its reason (1005).
   */
  async review(p: Principal, id: string, approve: boolean, reason: string, ip: string | null): Promise<ImagePublication> {
    this.deps.access.require(p, 'image.publish');
    const row = await this.repo.findPublication(id);
    const gone = () => notFound('待审核的公共镜像申请');
    if (!row || row.state !== 'pending') throw gone();
    const why = reason.trim();
    if (!approve && !why) throw invalid('reason', '驳回时请填写原因');
    const actor = await this.deps.audit.operator(p, ip);
    if (approve) {
      const target = parseImageRef(row.target)!;
      await this.need().copyImage(row.source.slice(0, row.source.lastIndexOf(':')), row.digest, target.repository, target.tag);
    }
    const state = approve ? 'approved' : 'rejected';
    const now = this.clock();
    const done = await this.repo.decidePublication(row.id, { state, reason: why, review_time: now }, (tx) =>
      this.deps.audit.record(tx, {
        actor,
        action: 'image.review',
        target: { type: 'image', id: row.id, name: row.source },
        before: { state: 'pending' },
        after: approve ? { state, image: row.target } : { state },
        reason: why,
      }),
    );
    // Another operator decided meanwhile (an approval's copy is then the same bytes under the same name).
    if (!done) throw gone();
    await this.deps.notify(row.owner_id, {
      type: 'system',
      title: approve ? '镜像已设为公共镜像' : '公共镜像申请未通过',
      content: approve
        ? `镜像「${row.source}」已设为公共镜像「${row.target}」，所有用户都可在创建任务时选用。`
        : `镜像「${row.source}」的公共镜像申请未通过：${why}。修改后可再次申请。`,
      businessType: 'image',
      businessId: row.id,
    });
    return (await this.view([(await this.repo.findPublication(id))!]))[0];
  }

  private async view(rows: PublicationRow[]): Promise<ImagePublication[]> {
    const names = await this.deps.users.names([...new Set(rows.map((r) => r.owner_id))]);
    return rows.map((r) => ({
      id: r.id,
      ownerId: r.owner_id,
      ownerName: names.get(r.owner_id)?.username ?? '',
      source: r.source,
      digest: r.digest,
      target: r.target,
      state: r.state === 'approved' || r.state === 'rejected' ? r.state : 'pending',
      reason: r.reason,
      createTime: Number(r.create_time),
      reviewTime: r.review_time === null ? null : Number(r.review_time),
    }));
  }
}

/** An approved public image in the task form: the platform's copy in `public/`, labelled with whose it was. */
export function publishedItem(address: string, r: Pick<PublicationRow, 'target' | 'source'>): ImageItem {
  const owner = r.source.split('/')[0];
  return {
    id: r.target,
    name: r.target,
    framework: '',
    version: r.target.slice(r.target.lastIndexOf(':') + 1),
    accelerator: '',
    cardVendors: [],
    uri: `docker://${address}/${r.target}`,
    description: `公共镜像（由 ${owner} 发布）`,
    visibility: 'public',
    owner,
  };
}
