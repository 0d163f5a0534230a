import type { Language } from '../../core/i18n/catalog.ts';
import { englishOnly } from '../../core/i18n/languages.ts';
import { coreMessages } from '../../core/i18n/messages/index.ts';

/**
 * A short, human description of a browser from its User-Agent ("Firefox on Linux"). Deliberately
 * small: it names the common browsers and systems and says "Unknown browser" for the rest; the raw
 * header is shown beside it anyway.
 */
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\bHeadlessChrome\//, 'Headless Chrome'],
  [/\bChrome\/|\bCriOS\/|\bChromium\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*Safari\//, 'Safari'],
  [/\bcurl\//, 'curl'],
];

const SYSTEMS: [RegExp, string][] = [
  [/\bAndroid\b/, 'Android'],
  [/\biPhone\b|\biPad\b|\biPod\b/, 'iOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

/** The description in `language`; English unless given (what is stored, such as an event's detail). */
export function describeDevice(
  userAgent: string | null | undefined,
  language: Language = englishOnly(),
): string {
  const t = coreMessages.in(language);
  if (!userAgent) return t('device.unknown');
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (browser && system) return t('device.browserOn', { browser, system });
  return browser ?? (system ? t('device.unknownBrowserOn', { system }) : t('device.unknown'));
}
