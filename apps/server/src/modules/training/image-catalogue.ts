import type { ImageItem, ImageQuery } from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';

/**
 * The public image catalogue: the `images` list of the centers file (checked by centers-file.ts). Read-only; the
 * user's private images (modules/image) join it in the task form's picker.
 */
export class ImageCatalogue {
  private readonly byId: Map<string, ImageItem>;

  constructor(
    readonly images: ImageItem[],
    private readonly centers: CenterConfig[],
  ) {
    this.byId = new Map(images.map((i) => [i.id, i]));
  }

  get(id: string): ImageItem | undefined {
    return this.byId.get(id);
  }

  /** The vendor of a card type id (the same id means the same card on every center). */
  vendorOf(cardTypeId: string): string | undefined {
    for (const c of this.centers) {
      const t = c.cardTypes.find((x) => x.id === cardTypeId);
      if (t) return t.vendor;
    }
    return undefined;
  }

  list(q: ImageQuery): ImageItem[] {
    const vendor = q.cardTypeId ? this.vendorOf(q.cardTypeId) : undefined;
    return this.images.filter(
      (i) => (!q.framework || i.framework === q.framework) && (!q.cardTypeId || (vendor !== undefined && i.cardVendors.includes(vendor))),
    );
  }
}
