/**
 * File size display from the spec: bytes below 10.24, KB below 102.4 KB, otherwise MB. The thresholds are
 * the spec's, exactly; they are odd-looking but intentional.
 */
export function formatFileSize(bytes: number): string {
  if (bytes < 10.24) return `${bytes} B`;
  if (bytes < 102.4 * 1024) return `${(bytes / 1024).toFixed(2)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(2)} MB`;
}

/** 13800000000 → 138****0000 */
export function maskPhone(phone: string): string {
  return phone.length >= 7 ? `${phone.slice(0, 3)}****${phone.slice(-4)}` : phone;
}

/** alice@example.com → a***@example.com */
export function maskEmail(email: string): string {
  const at = email.indexOf('@');
  if (at <= 0) return email;
  return `${email[0]}***${email.slice(at)}`;
}
