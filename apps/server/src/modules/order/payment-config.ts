import fs from 'node:fs';
import YAML from 'yaml';

/** The bank account an offline transfer goes to (`payment.offline` of config/centers.yaml). */
export interface OfflinePayment {
  bankName: string;
  accountName: string;
  accountNo: string;
  note: string;
  /** How long an order waits for a transfer once the owner chose it (ms). */
  holdMs: number;
}

/**
 * Reads `payment.offline` from the centers file (beside the centers whose packages it sells). Absent: the
 * offline channel is not offered. A half-filled block stops the process with the reason.
 */
export function loadOfflinePayment(file: string): OfflinePayment | undefined {
  const doc = YAML.parse(fs.readFileSync(file, 'utf8')) as { payment?: { offline?: Record<string, unknown> } } | null;
  const o = doc?.payment?.offline;
  if (!o) return undefined;
  for (const k of ['bankName', 'accountName', 'accountNo', 'note']) if (!o[k]) throw new Error(`${file}: payment.offline.${k} is required`);
  const holdHours = Number(o.holdHours ?? 24);
  if (!(holdHours > 0 && holdHours <= 24 * 30)) throw new Error(`${file}: payment.offline.holdHours must be within (0, 720]`);
  return {
    bankName: String(o.bankName),
    accountName: String(o.accountName),
    accountNo: String(o.accountNo),
    note: String(o.note),
    holdMs: Math.round(holdHours * 3600_000),
  };
}
