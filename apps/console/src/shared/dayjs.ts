import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';

/**
 * dayjs in Chinese. Set here, not in the app's providers, so dayjs stays out of the login page's first
 * load; the signed-in layout imports this module, so every page behind it (and antd's pickers) sees the
 * locale. Pages import dayjs from here.
 */
dayjs.locale('zh-cn');

export { dayjs };
