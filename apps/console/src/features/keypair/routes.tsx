import { underConstruction } from '../../shared/ui/under-construction';

/**
 * The key pair route group (/keypair, create).
 * Still to be built: every page shows the shared “功能建设中” page until its feature lands here.
 */
export const KeypairListPage = underConstruction({ title: '密钥对', description: '管理用于登录分中心节点的 SSH 密钥对。' });
export const KeypairCreatePage = underConstruction({ title: '创建密钥对', description: '生成新的 SSH 密钥对或导入已有公钥。' });
