// Inside Telegram: its Web App script, the theme and the viewport. Outside Telegram nothing here loads
// anything: the page must work offline and in any browser.

const SDK_URL = "https://telegram.org/js/telegram-web-app.js";
const SDK_WAIT_MS = 4000;

/** Telegram opens a Mini App with its launch data in the URL fragment, or through its webview proxy. */
function launchedByTelegram() {
  return /(^|[#&])tgWebAppData=/.test(location.hash) || "TelegramWebviewProxy" in window;
}

/** Telegram.WebApp, loading Telegram's script first when the page was opened by Telegram; else null. */
export async function telegramWebApp() {
  if (window.Telegram?.WebApp) return window.Telegram.WebApp;
  if (!launchedByTelegram()) return null;
  const launchData = new URLSearchParams(location.hash.slice(1)).get("tgWebAppData");
  await new Promise((resolve) => {
    const script = document.createElement("script");
    script.src = SDK_URL;
    script.onload = resolve;
    script.onerror = resolve; // offline or blocked: fall back to the launch data in the fragment
    document.head.append(script);
    setTimeout(resolve, SDK_WAIT_MS);
  });
  if (window.Telegram?.WebApp) return window.Telegram.WebApp;
  return launchData ? fromLaunchData(launchData) : null;
}

/** What Telegram's script would offer, read from the launch data in the fragment (its script failed). */
function fromLaunchData(initData) {
  const fields = new URLSearchParams(initData);
  const fragment = new URLSearchParams(location.hash.slice(1));
  const json = (text) => {
    try {
      return JSON.parse(text || "{}");
    } catch {
      return {};
    }
  };
  return {
    initData,
    initDataUnsafe: { user: json(fields.get("user")), start_param: fields.get("start_param") || undefined },
    themeParams: json(fragment.get("tgWebAppThemeParams")),
  };
}

/** Telegram's theme colours become CSS variables (--tg-theme-bg-color, ...), which style.css reads. */
export function applyTheme(webApp) {
  const root = document.documentElement;
  for (const [key, value] of Object.entries(webApp.themeParams || {})) {
    if (typeof value === "string" && /^#[0-9a-f]{3,8}$/i.test(value)) {
      root.style.setProperty(`--tg-theme-${key.replaceAll("_", "-")}`, value);
    }
  }
  if (webApp.colorScheme === "dark" || webApp.colorScheme === "light") {
    root.dataset.scheme = webApp.colorScheme;
  }
}

/** Tell Telegram the page is ready, take the full height, and follow later theme changes. */
export function startInTelegram(webApp) {
  applyTheme(webApp);
  webApp.ready?.();
  webApp.expand?.();
  webApp.disableVerticalSwipes?.(); // a swipe over the hand must not close the app
  webApp.onEvent?.("themeChanged", () => applyTheme(webApp));
}

/** A short vibration on phones that have it (Telegram only). */
export function buzz(webApp, kind) {
  const haptics = webApp?.HapticFeedback;
  if (!haptics) return;
  if (kind === "error") haptics.notificationOccurred?.("error");
  else haptics.impactOccurred?.("light");
}
