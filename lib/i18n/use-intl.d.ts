// Types the keys of every translator and useTranslations call by the English catalog (use-intl's AppConfig).
import type { Messages } from './catalogs';

declare module 'use-intl' {
  interface AppConfig {
    Messages: Messages;
  }
}
