import { MenuOutlined } from '@ant-design/icons';
import { Button, Menu, type MenuProps } from 'antd';
import { lazy, Suspense, useMemo, useState } from 'react';
import { menuGroupOf, type MenuGroup } from '../menu';
import styles from './header.module.css';

function itemsOf(groups: MenuGroup[]): MenuProps['items'] {
  return groups.map((group) => ({
    key: group.key,
    label: <span data-testid={`menu-${group.key}`}>{group.label}</span>,
    children: group.children.map((entry) => ({
      key: entry.key,
      label: <span data-testid={`menu-${entry.key}`}>{entry.label}</span>,
    })),
  }));
}

// Only phones draw the menu in a drawer: wider screens never load it.
const Drawer = lazy(() => import('antd/es/drawer'));

/** A screen without a pointer that hovers (phones, tablets). */
const touchOnly = () => window.matchMedia('(hover: none)').matches;

interface TopMenuProps {
  /** The groups this user sees (menuFor: 运营管理 only for operators). */
  groups: MenuGroup[];
  selectedKey: string | undefined;
  onSelect: (key: string) => void;
  /** A phone: the groups live in a drawer behind a menu button instead of popups off the header. */
  compact: boolean;
}

/**
 * The product's top menu; the current route's entry and its group are highlighted. Its submenus are
 * controlled so that choosing an entry closes them, and open on a tap where there is no hover: a touch
 * screen's emulated hover otherwise keeps the popup open over the new page. On a phone the horizontal menu would fold into a ⋯
 * whose nested popups open beside it, past the screen's edge; there the groups open in a drawer instead.
 */
export function TopMenu({ groups, selectedKey, onSelect, compact }: TopMenuProps) {
  const items = useMemo(() => itemsOf(groups), [groups]);
  const group = menuGroupOf(selectedKey);
  const selectedKeys = selectedKey ? [selectedKey, ...(group ? [group] : [])] : [];
  const [openKeys, setOpenKeys] = useState<string[]>([]);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const choose: MenuProps['onClick'] = ({ key }) => {
    setOpenKeys([]);
    setDrawerOpen(false);
    onSelect(key);
  };

  if (!compact) {
    return (
      <Menu
        mode="horizontal"
        className={styles.menu}
        items={items}
        // A tap emulates a hover that lands after the click and reopens what the click closed.
        triggerSubMenuAction={touchOnly() ? 'click' : 'hover'}
        selectedKeys={selectedKeys}
        openKeys={openKeys}
        onOpenChange={setOpenKeys}
        onClick={choose}
        data-testid="top-menu"
      />
    );
  }
  return (
    <div className={styles.menu}>
      <Button
        type="text"
        icon={<MenuOutlined />}
        aria-label="打开菜单"
        aria-expanded={drawerOpen}
        onClick={() => {
          // The current page's group starts unfolded.
          setOpenKeys(group ? [group] : []);
          setDrawerOpen(true);
        }}
        data-testid="top-menu-toggle"
      />
      <Suspense fallback={null}>
        <Drawer
          open={drawerOpen}
          onClose={() => setDrawerOpen(false)}
          placement="left"
          size={280}
          title="菜单"
          styles={{ body: { padding: 0 } }}
          data-testid="top-menu-drawer"
        >
          <Menu
            mode="inline"
            items={items}
            selectedKeys={selectedKeys}
            openKeys={openKeys}
            onOpenChange={setOpenKeys}
            onClick={choose}
            style={{ borderInlineEnd: 0 }}
            data-testid="top-menu"
          />
        </Drawer>
      </Suspense>
    </div>
  );
}
