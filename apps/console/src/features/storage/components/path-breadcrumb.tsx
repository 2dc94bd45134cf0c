import { HomeOutlined } from '@ant-design/icons';
import { Breadcrumb } from 'antd';
import { breadcrumbOf } from '../paths';

/** Where the listing is, each ancestor clickable. */
export function PathBreadcrumb({ path, onNavigate }: { path: string; onNavigate: (path: string) => void }) {
  const crumbs = breadcrumbOf(path);
  return (
    <Breadcrumb
      data-testid="storage-breadcrumb"
      style={{ marginBottom: 12 }}
      items={crumbs.map((c, i) => ({
        key: c.path,
        title:
          i === crumbs.length - 1 ? (
            <span data-path={c.path}>
              {i === 0 && <HomeOutlined style={{ marginRight: 4 }} />}
              {c.title}
            </span>
          ) : (
            <a data-path={c.path} onClick={() => onNavigate(c.path)}>
              {i === 0 && <HomeOutlined style={{ marginRight: 4 }} />}
              {c.title}
            </a>
          ),
      }))}
    />
  );
}
