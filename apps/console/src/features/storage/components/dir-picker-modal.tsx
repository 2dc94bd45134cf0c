import { FolderFilled, FolderOpenFilled, HomeOutlined } from '@ant-design/icons';
import type { FileEntry } from '@suanli/contracts';
import { ConfigProvider, Modal, Tree, Typography } from 'antd';
import type { DataNode, EventDataNode } from 'antd/es/tree';
import { useEffect, useState } from 'react';
import { isWithin, ROOT } from '../paths';
import { useModalSubmit } from './use-modal-submit';

export interface DirPickerModalProps {
  open: boolean;
  title: string;
  okText?: string;
  /** Sub-directories of a path; called as folders are expanded. */
  loadDirs: (path: string) => Promise<FileEntry[]>;
  /** Folders that cannot be the target (a folder cannot go into itself or its own subtree). */
  excluded?: string[];
  onSubmit: (targetDir: string) => Promise<unknown>;
  onClose: () => void;
}

type Node = DataNode & { key: string };

const TREE_THEME = { components: { Tree: { indentSize: 15 } } };

function toNode(entry: FileEntry, excluded: string[]): Node {
  return {
    key: entry.path,
    title: entry.name,
    isLeaf: false,
    disabled: excluded.some((x) => isWithin(entry.path, x)),
  };
}

function withChildren(nodes: Node[], key: string, children: Node[]): Node[] {
  return nodes.map((n) => (n.key === key ? { ...n, children, isLeaf: children.length === 0 } : n.children ? { ...n, children: withChildren(n.children as Node[], key, children) } : n));
}

/** 移动到 / 复制到: a lazily loaded folder tree rooted at the user's home. */
export function DirPickerModal({ open, title, okText = '确定', loadDirs, excluded = [], onSubmit, onClose }: DirPickerModalProps) {
  const [tree, setTree] = useState<Node[]>([{ key: ROOT, title: '全部文件', isLeaf: false, icon: <HomeOutlined /> }]);
  const [selected, setSelected] = useState<string>(ROOT);
  const { busy, run } = useModalSubmit(onSubmit, onClose);

  // The home folder starts expanded, so its children are fetched right away rather than on a click.
  useEffect(() => {
    let live = true;
    loadDirs(ROOT)
      .catch(() => [])
      .then((dirs) => live && setTree((t) => withChildren(t, ROOT, dirs.map((d) => toNode(d, excluded)))));
    return () => {
      live = false;
    };
    // Mounted once per opening (the page renders it only while needed).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const loadData = async (node: EventDataNode<Node>) => {
    // The home folder is fetched on mount (above).
    if (node.children || node.key === ROOT) return;
    const dirs = await loadDirs(node.key).catch(() => []);
    setTree((t) => withChildren(t, node.key, dirs.map((d) => toNode(d, excluded))));
  };

  const submit = () => run(selected);

  return (
    <Modal
      open={open}
      title={title}
      okText={okText}
      cancelText="取消"
      onOk={submit}
      onCancel={onClose}
      confirmLoading={busy}
      okButtonProps={{ disabled: excluded.some((x) => isWithin(selected, x)), ...({ 'data-testid': 'storage-picker-ok' } as object) }}
      destroyOnHidden
    >
      <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
        目标位置：<Typography.Text code data-testid="storage-picker-target">{selected}</Typography.Text>
      </Typography.Paragraph>
      <div style={{ maxHeight: 360, overflow: 'auto', border: '1px solid rgba(5,5,5,0.06)', borderRadius: 6, padding: 8 }}>
        <ConfigProvider theme={TREE_THEME}>
          <Tree<Node>
            showIcon
            blockNode
            defaultExpandedKeys={[ROOT]}
            treeData={tree}
            loadData={loadData}
            selectedKeys={[selected]}
            onSelect={(keys) => keys.length && setSelected(String(keys[0]))}
            icon={(props) => ((props as { expanded?: boolean }).expanded ? <FolderOpenFilled style={{ color: '#f7c244' }} /> : <FolderFilled style={{ color: '#f7c244' }} />)}
            titleRender={(node) => (
              <span data-testid="storage-picker-node" data-path={node.key}>
                {node.title as string}
              </span>
            )}
          />
        </ConfigProvider>
      </div>
    </Modal>
  );
}
