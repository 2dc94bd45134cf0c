/** Types of build-guide.mjs for the TypeScript that imports it (the guide's api test). */
export declare const GUIDE_SRC: string;
export declare const GUIDE_OUT: string;
export interface GuidePage {
  /** Source file under docs/guide, e.g. `03-storage.md`. */
  file: string;
  /** Served as `<slug>.html`. */
  slug: string;
  title: string;
}
export declare function buildGuide(options?: { srcDir?: string; outDir?: string }): GuidePage[];
