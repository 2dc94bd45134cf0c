/**
 * Card vendors as a Chinese page names them. The centers' configuration and the image catalogue keep the
 * vendor's own identifier (`Huawei`, `Hygon`: image ↔ card type matching uses it); NVIDIA is known by its
 * brand in Chinese as well. An unknown vendor shows as configured.
 */
const VENDOR_LABELS: Record<string, string> = {
  huawei: '华为',
  hygon: '海光',
  intel: '英特尔',
  amd: 'AMD',
  nvidia: 'NVIDIA',
};

export const vendorLabel = (vendor: string): string => VENDOR_LABELS[vendor.toLowerCase()] ?? vendor;
