/**
 * The error catalogue: every business code the gateway or a file service can answer, with its Chinese
 * text. The console shows `message.message` from the server, and falls back to these texts for transport
 * failures, so both sides read from this one table.
 */
export const ErrorCode = {
  OK: 0,
  PARAM_EMPTY: 1001,
  PARAM_NULL: 1002,
  PARAM_TYPE: 1003,
  NULL_POINTER: 1004,
  PARAM_INVALID: 1005,
  NO_PERMISSION: 1020,
  WRONG_USERNAME: 1021,
  WRONG_ACCOUNT: 1022,
  WRONG_PASSWORD: 1023,
  WRONG_USERNAME_OR_PASSWORD: 1024,
  WRONG_ACCOUNT_OR_PASSWORD: 1025,
  WRONG_CODE: 1026,
  RESOURCE_FAILED: 1200,
  ADD_FAILED: 1201,
  DELETE_FAILED: 1202,
  UPDATE_FAILED: 1203,
  QUERY_FAILED: 1204,
  NOT_FOUND: 1205,
  DUPLICATE: 1206,
  FILE_FAILED: 1300,
  FILE_NOT_FOUND: 1301,
  DIR_NOT_FOUND: 1302,
  FILE_EXISTS: 1303,
  DIR_EXISTS: 1304,
  UPLOAD_FAILED: 1305,
  CHUNK_MISSING: 1306,
  FILE_CHECK_FAILED: 1307,
  ILLEGAL_PATH: 1308,
  NO_SPACE: 1309,
  FILE_TOO_LARGE: 1310,
  FILE_TYPE_UNSUPPORTED: 1311,
  DOWNLOAD_FAILED: 1312,
  THIRD_PARTY_FAILED: 1400,
  THIRD_PARTY_TIMEOUT: 1401,
  THIRD_PARTY_BAD_RESPONSE: 1402,
  INTERNAL_FAILED: 1403,
  INTERNAL_TIMEOUT: 1404,
  INTERNAL_BAD_RESPONSE: 1405,
  /** Missing or unknown token. */
  NOT_LOGGED_IN: 10133,
  /** Idle (30 min) or absolute (12 h) timeout. */
  SESSION_EXPIRED: 10157,
  /** Logged out elsewhere, password changed, account disabled. */
  SESSION_REVOKED: 10307,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

export const ERROR_MESSAGES: Record<number, string> = {
  0: '操作成功',
  1001: '参数为空',
  1002: '参数为null',
  1003: '参数类型错误',
  1004: '空指针异常',
  1005: '参数校验失败',
  1020: '没有权限',
  1021: '用户名错误',
  1022: '账号错误',
  1023: '密码错误',
  1024: '用户名或密码错误',
  1025: '账号或密码错误',
  1026: '验证码错误',
  1200: '资源操作失败',
  1201: '新增失败',
  1202: '删除失败',
  1203: '修改失败',
  1204: '查询失败',
  1205: '查询结果为空',
  1206: '不允许重复',
  1300: '文件操作失败',
  1301: '文件不存在',
  1302: '目录不存在',
  1303: '文件已存在',
  1304: '目录已存在',
  1305: '文件上传失败',
  1306: '分片缺失，无法合并',
  1307: '文件校验失败',
  1308: '非法路径',
  1309: '存储空间不足',
  1310: '文件过大',
  1311: '不支持的文件类型',
  1312: '文件下载失败',
  1400: '第三方服务请求失败',
  1401: '第三方服务请求超时',
  1402: '第三方服务响应异常',
  1403: '内部组件请求失败',
  1404: '内部组件请求超时',
  1405: '内部组件响应异常',
  10133: '未登录或登录已失效',
  10157: '登录已过期，请重新登录',
  10307: '账号状态已变更，请重新登录',
};

/** Codes after which the console clears the user and goes to the login page. */
export const SESSION_INVALID_CODES: readonly number[] = [
  ErrorCode.NOT_LOGGED_IN,
  ErrorCode.SESSION_EXPIRED,
  ErrorCode.SESSION_REVOKED,
];

export const HTTP_STATUS_MESSAGES: Record<number, string> = {
  400: '请求失败',
  401: '未授权，请重新登录',
  403: '拒绝访问',
  404: '请求的资源不存在',
  405: '请求方法不允许',
  415: '不支持的请求内容类型',
  500: '服务器内部错误',
  502: '网关错误',
  503: '服务不可用',
  504: '网关超时',
};

export const CLIENT_TIMEOUT_MESSAGE = '请求超时，请检查网络连接并重新尝试！';
export const CLIENT_FAILURE_MESSAGE = '系统异常，请联系管理员！';

export function errorMessage(code: number): string {
  return ERROR_MESSAGES[code] ?? ERROR_MESSAGES[ErrorCode.RESOURCE_FAILED];
}
