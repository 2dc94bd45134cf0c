import { Menu, type MenuProps } from 'antd';
import { menuGroupOf, TOP_MENU } from '../menu';
import styles from './header.module.css';

const ITEMS: MenuProps['items'] = TOP_MENU.map((group) => ({
  key: group.key,
  label: group.label,
  children: group.children.map((entry) => ({
    key: entry.key,
    label: <span data-testid={`menu-${entry.key}`}>{entry.label}</span>,
  })),
}));

interface TopMenuProps {
  selectedKey: string | undefined;
  onSelect: (key: string) => void;
}

/** The product's top menu; the current route's entry and its group are highlighted. */
export function TopMenu({ selectedKey, onSelect }: TopMenuProps) {
  const group = menuGroupOf(selectedKey);
  return (
    <Menu
      mode="horizontal"
      className={styles.menu}
      items={ITEMS}
      selectedKeys={selectedKey ? [selectedKey, ...(group ? [group] : [])] : []}
      onClick={({ key }) => onSelect(key)}
      data-testid="top-menu"
    />
  );
}
