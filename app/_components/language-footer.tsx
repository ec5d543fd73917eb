// Every page's footer: the languages Portico speaks, each named in itself, the current one marked. Plain buttons of
// one form (no script needed); lib/i18n/negotiate.ts says how the language is chosen when nobody picked one.
import { localeName, supportedLocales } from '@/lib/i18n/catalogs';
import { getT, requestLocale } from '@/app/_lib/i18n/server';
import { chooseLanguage } from './language-actions';

export async function LanguageFooter() {
  const locale = await requestLocale();
  const t = await getT('footer');
  return (
    <footer className="language-footer" data-testid="language-footer">
      <form action={chooseLanguage} aria-label={t('languageLabel')}>
        <span aria-hidden="true">{t('languageLabel')}:</span>
        {supportedLocales().map((option) => (
          <button
            key={option}
            type="submit"
            name="locale"
            value={option}
            lang={option}
            className="language-option"
            aria-pressed={option === locale}
            data-testid={`language-${option}`}
          >
            {localeName(option)}
          </button>
        ))}
      </form>
    </footer>
  );
}
