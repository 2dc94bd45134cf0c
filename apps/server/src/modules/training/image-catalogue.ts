import fs from 'node:fs';
import YAML from 'yaml';
import type { ImageItem, ImageQuery } from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';

const IMAGE_FIELDS = new Set(['id', 'name', 'framework', 'version', 'accelerator', 'cardVendors', 'uri', 'description']);

/**
 * The public image catalogue: the `images` list of the centers file (read once at start). Read-only; the
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

  static load(file: string, centers: CenterConfig[]): ImageCatalogue {
    const doc = YAML.parse(fs.readFileSync(file, 'utf8')) as { images?: Record<string, unknown>[] };
    const images = (doc.images ?? []).map((x, i) => {
      if (!x.id || !x.uri) throw new Error(`${file}: images[${i}] needs id and uri`);
      // A comma in an unquoted value of a flow mapping (`{ name: A (b, c) }`) ends the value and makes the
      // rest a key: the name was cut short with no error. Refuse what is not a field of an image.
      const unknown = Object.keys(x).filter((k) => !IMAGE_FIELDS.has(k));
      if (unknown.length) throw new Error(`${file}: images[${i}] (${String(x.id)}) has unknown fields ${unknown.join(', ')} — quote values that contain a comma`);
      return {
        id: String(x.id),
        name: String(x.name ?? x.id),
        framework: String(x.framework ?? ''),
        version: String(x.version ?? ''),
        accelerator: String(x.accelerator ?? ''),
        cardVendors: ((x.cardVendors as unknown[]) ?? []).map(String),
        uri: String(x.uri),
        description: String(x.description ?? ''),
        visibility: 'public' as const,
      };
    });
    return new ImageCatalogue(images, centers);
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
