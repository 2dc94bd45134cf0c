import { App, Button, Flex, Typography } from 'antd';
import type { ConflictChoice } from '../conflicts';

type ModalApi = ReturnType<typeof App.useApp>['modal'];

const SHOWN = 5;

/**
 * Asks what to do with names that already exist in the target folder. Resolves with the choice, or null
 * when the user closes the dialog (the upload is then not started).
 */
export function askConflict(modal: ModalApi, names: string[]): Promise<ConflictChoice | null> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (choice: ConflictChoice | null) => {
      if (settled) return;
      settled = true;
      resolve(choice);
      dialog.destroy();
    };
    const listed = names.slice(0, SHOWN).map((n) => `“${n}”`).join('、');
    const more = names.length > SHOWN ? ` 等 ${names.length} 项` : '';
    const dialog = modal.confirm({
      title: names.length === 1 ? '目标文件夹中已有同名项目' : `目标文件夹中已有 ${names.length} 个同名项目`,
      content: (
        <Flex vertical gap={8} data-testid="upload-conflict">
          <Typography.Text style={{ overflowWrap: 'anywhere' }}>
            {listed}
            {more}已存在。
          </Typography.Text>
          <Typography.Text type="secondary">覆盖会替换已有的文件；保留两者会以“名称 (1)”这样的新名称上传；跳过则不上传这些项目。</Typography.Text>
        </Flex>
      ),
      closable: true,
      mask: { closable: false },
      onCancel: () => finish(null),
      footer: (
        <Flex justify="flex-end" gap={8} wrap style={{ marginTop: 16 }}>
          <Button onClick={() => finish('skip')} data-testid="upload-conflict-skip">
            跳过
          </Button>
          <Button onClick={() => finish('keepBoth')} data-testid="upload-conflict-keep">
            保留两者
          </Button>
          <Button type="primary" danger onClick={() => finish('overwrite')} data-testid="upload-conflict-overwrite">
            覆盖
          </Button>
        </Flex>
      ),
    });
  });
}
