/**
 * Known crawlers, monitors, headless browsers and HTTP libraries: beacons from them are
 * dropped before anything is read. A browser always sends a User-Agent, so none is a bot too.
 */
const CRAWLER =
  /(?<!cu)bot\b|bot[/;-]|crawl|spider|slurp|archiver|scrap|headless|phantomjs|puppeteer|playwright|selenium|lighthouse|pagespeed|pingdom|uptime|statuscake|site24x7|facebookexternalhit|embedly|curl\/|wget|python|go-http-client|java\/|okhttp|libwww|httpclient|axios|node-fetch|undici|^node$|ahrefs|semrush|mj12|bingpreview|petalbot|bytespider|gptbot|claudebot|ccbot|perplexity/i;

export function isCrawler(userAgent: string | null): boolean {
  return !userAgent || userAgent.trim() === "" || CRAWLER.test(userAgent);
}
