/** 密钥对 calls (base KEYPAIR_BASE), one function per call, through the console's one request pipeline. */
import { KEYPAIR_BASE, type KeyPair, type KeyPairGenerate, type KeyPairGenerated, type KeyPairImport } from '@suanli/contracts';
import { request } from '../../app/request';

const keyUrl = (id: string) => `${KEYPAIR_BASE}/keypairs/${encodeURIComponent(id)}`;

export function listKeyPairs(): Promise<KeyPair[]> {
  return request.get<KeyPair[]>(`${KEYPAIR_BASE}/keypairs`);
}

export function generateKeyPair(body: KeyPairGenerate): Promise<KeyPairGenerated> {
  return request.post<KeyPairGenerated>(`${KEYPAIR_BASE}/keypairs/generate`, { data: body });
}

export function importKeyPair(body: KeyPairImport): Promise<KeyPair> {
  return request.post<KeyPair>(`${KEYPAIR_BASE}/keypairs/import`, { data: body });
}

export function installKeyPair(id: string, subCenterIds: string[]): Promise<KeyPair> {
  return request.post<KeyPair>(`${keyUrl(id)}/install`, { data: { subCenterIds } });
}

export function uninstallKeyPair(id: string, subCenterIds: string[]): Promise<KeyPair> {
  return request.post<KeyPair>(`${keyUrl(id)}/uninstall`, { data: { subCenterIds } });
}

export function deleteKeyPair(id: string): Promise<null> {
  return request.delete<null>(keyUrl(id));
}
