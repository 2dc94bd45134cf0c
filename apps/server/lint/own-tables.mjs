import fs from 'node:fs';

/**
 * ESLint rule `suanli/own-tables`: code in a server module (apps/server/src/modules/<name>/, realtime/) may
 * name in SQL only the tables its module owns (src/db/table-owners.json) — in Kysely's table arguments
 * (selectFrom, insertInto, updateTable, deleteFrom, the joins; `'t as x'` and `'t.col'` forms) and in raw
 * `sql` templates (`from t`, `join t`, `into t`, `update t`). Another module's data is read through that
 * module's services. A table missing from the map is reported too, so that every new table gets an owner.
 */
const owners = JSON.parse(fs.readFileSync(new URL('../src/db/table-owners.json', import.meta.url), 'utf8'));

const TABLE_METHODS = new Set([
  'selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto',
  'innerJoin', 'leftJoin', 'rightJoin', 'fullJoin', 'crossJoin', 'innerJoinLateral', 'leftJoinLateral', 'crossJoinLateral',
]);
const RAW_SQL = /\b(?:from|join|into|update)\s+"?([a-z_][a-z0-9_]*)"?/gi;

/** The module a file belongs to, or null for code outside the modules (db/, file-service/, seed…). */
function moduleOf(filename) {
  const f = filename.replaceAll('\\', '/');
  const m = /\/apps\/server\/src\/modules\/([^/]+)\//.exec(f);
  if (m) return m[1];
  return /\/apps\/server\/src\/realtime\//.test(f) ? 'realtime' : null;
}

/** `'users'`, `'users as u'`, `'users.id'` → `users`. */
const tableOf = (text) => text.trim().split(/\s+/)[0].split('.')[0];

function stringsOf(node) {
  if (!node) return [];
  if (node.type === 'Literal' && typeof node.value === 'string') return [node];
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) return [node];
  if (node.type === 'ArrayExpression') return node.elements.flatMap(stringsOf);
  return [];
}
const textOf = (node) => (node.type === 'Literal' ? node.value : node.quasis[0].value.cooked);

export const ownTables = {
  meta: {
    type: 'problem',
    docs: { description: "A module's SQL names only the tables it owns (src/db/table-owners.json)." },
    messages: {
      foreign: "Table '{{table}}' belongs to the {{owner}} module: read it through that module's service, not from '{{module}}' (docs/adding-a-module.md §4).",
      unowned: "Table '{{table}}' has no owner in apps/server/src/db/table-owners.json: add it to its module's entry.",
    },
    schema: [],
  },
  create(context) {
    const module = moduleOf(context.filename);
    if (!module) return {};
    const check = (node, table) => {
      const owner = owners[table];
      if (owner === undefined) context.report({ node, messageId: 'unowned', data: { table } });
      else if (owner !== module) context.report({ node, messageId: 'foreign', data: { table, owner, module } });
    };
    return {
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type !== 'MemberExpression' || callee.property.type !== 'Identifier' || !TABLE_METHODS.has(callee.property.name)) return;
        for (const s of stringsOf(node.arguments[0])) check(s, tableOf(textOf(s)));
      },
      TaggedTemplateExpression(node) {
        if (node.tag.type !== 'Identifier' || node.tag.name !== 'sql') return;
        for (const q of node.quasi.quasis) {
          for (const m of (q.value.cooked ?? '').matchAll(RAW_SQL)) if (owners[m[1].toLowerCase()] !== undefined) check(q, m[1].toLowerCase());
        }
      },
    };
  },
};
