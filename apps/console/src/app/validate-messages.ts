/**
 * Chinese default messages for antd Form rules (console-spec §5): required, enum, whitespace, type,
 * string/number/array length or range, pattern. `${label}` is the field's label.
 */
const typeTemplate = '${label}不是有效的${type}';

export const validateMessages = {
  default: '${label}校验失败',
  required: '请输入${label}',
  enum: '${label}必须是[${enum}]中的一个',
  whitespace: '${label}不能为空白字符',
  date: {
    format: '${label}的日期格式无效',
    parse: '${label}无法解析为日期',
    invalid: '${label}不是有效的日期',
  },
  types: {
    string: typeTemplate,
    method: typeTemplate,
    array: typeTemplate,
    object: typeTemplate,
    number: typeTemplate,
    date: typeTemplate,
    boolean: typeTemplate,
    integer: typeTemplate,
    float: typeTemplate,
    regexp: typeTemplate,
    email: '${label}不是有效的邮箱地址',
    url: '${label}不是有效的网址',
    hex: typeTemplate,
  },
  string: {
    len: '${label}须为${len}个字符',
    min: '${label}至少${min}个字符',
    max: '${label}最多${max}个字符',
    range: '${label}须为${min}-${max}个字符',
  },
  number: {
    len: '${label}必须等于${len}',
    min: '${label}不能小于${min}',
    max: '${label}不能大于${max}',
    range: '${label}须在${min}-${max}之间',
  },
  array: {
    len: '${label}须为${len}项',
    min: '${label}至少选择${min}项',
    max: '${label}最多选择${max}项',
    range: '${label}须选择${min}-${max}项',
  },
  pattern: {
    mismatch: '${label}格式不正确',
  },
};
