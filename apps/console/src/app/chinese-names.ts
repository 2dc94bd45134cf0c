/**
 * Chinese accessible names for what antd draws with English ones. The locale (`zh_CN`, providers.tsx)
 * covers most texts, but not these, and none of them has a prop, locale key or ConfigProvider setting:
 * - every icon: `<span role="img" aria-label="close">` — its aria-label is the icon's file name;
 * - strings written into antd and its rc-components: InputNumber's steppers (Increase Value), Select's clear
 *   button (Clear), Table's selection checkboxes (Select all, Select row 3), Segmented (segmented control),
 *   rc-dialog's / rc-notification's close button, rc-tabs' defaults (Add tab, remove, expanded dropdown),
 *   the `<title>` of Result's 404/403/500 pictures (No Found).
 * Wrapping each usage would need every future page to remember it, so one observer translates them where
 * they appear, console-wide, portals included. React writes an attribute only when its prop changes; when it
 * does (a row's index, a new icon), the observer sees that change and translates it again.
 * `e2e/support/english.ts` fails a journey when English still reaches the page.
 */

/** Icon name (antd's `icon.name`, the English aria-label) → what a screen reader says. */
export const ICON_LABELS: Record<string, string> = {
  api: '接口',
  'arrow-left': '返回',
  bars: '菜单',
  bell: '消息',
  bulb: '建议',
  calendar: '日历',
  camera: '相机',
  'caret-down': '向下',
  'caret-up': '向上',
  check: '已选',
  'check-circle': '成功',
  'check-square': '勾选',
  'clock-circle': '时间',
  close: '关闭',
  'close-circle': '清除',
  'cloud-sync': '同步',
  'cloud-upload': '上传',
  cluster: '集群',
  code: '代码',
  copy: '复制',
  'customer-service': '客服',
  database: '数据',
  delete: '删除',
  diff: '对比',
  'double-left': '向前翻页',
  'double-right': '向后翻页',
  down: '向下',
  download: '下载',
  drag: '拖动',
  edit: '编辑',
  ellipsis: '更多',
  enter: '确认',
  'exclamation-circle': '警告',
  experiment: '实验',
  eye: '显示',
  'eye-invisible': '隐藏',
  file: '文件',
  'file-text': '文档',
  filter: '筛选',
  folder: '文件夹',
  'folder-add': '新建文件夹',
  'folder-open': '文件夹',
  holder: '拖动',
  home: '主目录',
  import: '导入',
  inbox: '上传',
  'info-circle': '提示',
  key: '密钥',
  left: '向左',
  link: '链接',
  loading: '加载中',
  lock: '密码',
  logout: '退出登录',
  mail: '邮箱',
  menu: '菜单',
  message: '消息',
  minus: '减少',
  'minus-square': '收起',
  mobile: '手机',
  more: '更多',
  'paper-clip': '附件',
  picture: '图片',
  plus: '添加',
  'plus-square': '展开',
  'question-circle': '帮助',
  redo: '重试',
  reload: '刷新',
  right: '向右',
  'rotate-left': '向左旋转',
  'rotate-right': '向右旋转',
  safety: '安全',
  'safety-certificate': '权限',
  save: '保存',
  search: '搜索',
  send: '发送',
  'share-alt': '共享',
  snippets: '模板',
  star: '星标',
  stop: '停止',
  swap: '切换',
  'swap-right': '至',
  team: '团队',
  thunderbolt: '算力',
  tool: '工具',
  up: '向上',
  upload: '上传',
  user: '用户',
  'vertical-align-top': '回到顶部',
  warning: '警告',
  'zoom-in': '放大',
  'zoom-out': '缩小',
};

/**
 * English that antd and rc-components write into aria-labels, each where it is written (a selector), so a
 * user's file or task that happens to be called "Clear" keeps its name.
 */
const TEXTS: { at: string; en: RegExp; zh: string }[] = [
  { at: '.ant-input-number-action-up', en: /^Increase Value$/, zh: '增大' },
  { at: '.ant-input-number-action-down', en: /^Decrease Value$/, zh: '减小' },
  { at: '.ant-select-clear', en: /^Clear$/, zh: '清除' },
  { at: '.ant-table-selection input', en: /^Select all$/, zh: '全选' },
  { at: '.ant-table-selection-column input', en: /^Select row (\d+)$/, zh: '选择第 $1 行' },
  { at: '.ant-table-selection-column input', en: /^Row (\d+) selected$/, zh: '第 $1 行已选中' },
  { at: '.ant-segmented', en: /^segmented control$/, zh: '分段选择' },
  { at: '.ant-modal-close, .ant-notification-notice-close', en: /^Close$/, zh: '关闭' },
  { at: '.ant-tabs-nav-add', en: /^Add tab$/, zh: '新建标签页' },
  { at: '.ant-tabs-tab-remove', en: /^remove$/, zh: '关闭' },
  { at: '.ant-tabs-nav-more', en: /^expanded dropdown$/, zh: '更多标签页' },
  // The toolbar of an image shown large (工单 screenshots).
  { at: '.ant-image-preview-actions-action', en: /^flipY$/, zh: '上下翻转' },
  { at: '.ant-image-preview-actions-action', en: /^flipX$/, zh: '左右翻转' },
  { at: '.ant-image-preview-actions-action', en: /^rotateLeft$/, zh: '向左旋转' },
  { at: '.ant-image-preview-actions-action', en: /^rotateRight$/, zh: '向右旋转' },
  { at: '.ant-image-preview-actions-action', en: /^zoomOut$/, zh: '缩小' },
  { at: '.ant-image-preview-actions-action', en: /^zoomIn$/, zh: '放大' },
];

/**
 * The Chinese for an element's aria-label, or null to leave it. An icon in a pager item says what the item
 * does (上一页, 向前 5 页 — the item's title from the locale) rather than which way its arrow points.
 */
function chinese(el: Element, value: string): string | null {
  if (el.classList.contains('anticon')) {
    if (!(value in ICON_LABELS)) return null;
    const pagerItem = el.closest('.ant-pagination [title]');
    if (pagerItem && !el.closest('.ant-pagination-item-ellipsis')) return pagerItem.getAttribute('title');
    return ICON_LABELS[value];
  }
  for (const t of TEXTS) if (t.en.test(value) && el.matches(t.at)) return value.replace(t.en, t.zh);
  return null;
}

function fix(el: Element) {
  const value = el.getAttribute('aria-label');
  const zh = value && chinese(el, value);
  if (zh && zh !== value) el.setAttribute('aria-label', zh);
}

/**
 * The pictures of antd's Result for 404, 403 and 500 are SVGs whose `<title>` — what a screen reader reads for
 * them — is English (found by the e2e walks (e2e/walk-*.e2e.ts) on 文件不存在 and 镜像不存在).
 */
const RESULT_IMAGE_TITLES: Record<string, string> = { 'No Found': '未找到', Unauthorized: '无权访问', 'Server Error': '服务器错误' };

function fixTree(root: Element) {
  if (root.hasAttribute('aria-label')) fix(root);
  for (const el of Array.from(root.querySelectorAll('[aria-label]'))) fix(el);
  // Matched against the whole document, so an SVG added on its own is found too. React never rewrites these
  // constant texts, so the translation stays.
  for (const title of Array.from(root.querySelectorAll('.ant-result-image svg title'))) {
    const zh = RESULT_IMAGE_TITLES[title.textContent ?? ''];
    if (zh) title.textContent = zh;
  }
}

/** Translates what is on the page now and everything added later; returns the stop function. */
export function installChineseNames(root: Element = document.body): () => void {
  fixTree(root);
  const observer = new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'attributes') fix(r.target as Element);
      else for (const n of Array.from(r.addedNodes)) if (n.nodeType === Node.ELEMENT_NODE) fixTree(n as Element);
    }
  });
  observer.observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-label'] });
  return () => observer.disconnect();
}
