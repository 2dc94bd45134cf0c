/** 密钥对 calls, one function per call, through the route descriptors (KeyPairApi). */
import { KeyPairApi, type KeyPairGenerate, type KeyPairImport } from '@suanli/contracts';
import { call } from '../../app/request';

export function listKeyPairs() {
  return call(KeyPairApi.list);
}

export function generateKeyPair(body: KeyPairGenerate) {
  return call(KeyPairApi.generate, { body });
}

export function importKeyPair(body: KeyPairImport) {
  return call(KeyPairApi.import, { body });
}

export function installKeyPair(id: string, subCenterIds: string[]) {
  return call(KeyPairApi.install, { params: { id }, body: { subCenterIds } });
}

export function uninstallKeyPair(id: string, subCenterIds: string[]) {
  return call(KeyPairApi.uninstall, { params: { id }, body: { subCenterIds } });
}

export function deleteKeyPair(id: string) {
  return call(KeyPairApi.remove, { params: { id } });
}
