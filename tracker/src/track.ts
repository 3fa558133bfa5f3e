/**
 * The link part of the tracker (`t.js?track`), loaded by the core only when the script tag
 * asks for it (`data-track="outbound downloads"`): it records clicks on outbound links and
 * file downloads (tracker/src/links.ts) through `wren.track`, whose sendBeacon leaves before
 * the navigation starts. Left clicks and keyboard activation are `click` events, middle
 * clicks `auxclick` with button 1; listened to in the capture phase, so a page that stops
 * propagation does not hide them.
 */
import { linkClick, linkOptions } from "./links";

type Track = (name: string, options: { props: Record<string, string> }) => void;

const wren = (window as Window & { wren?: { track?: Track } }).wren;
const tag = document.querySelector("script[data-track]");
if (wren && wren.track && tag) {
  const track = wren.track;
  const options = linkOptions(tag.getAttribute("data-track"), tag.getAttribute("data-download-extensions"));
  const onClick = (event: MouseEvent) => {
    try {
      if (event.type === "auxclick" && event.button !== 1) return;
      const link = (event.target as Element).closest("a[href]");
      const click = link && linkClick(String((link as HTMLAnchorElement).href), location.href, options);
      if (click) track(click.name, { props: click.props });
    } catch {
      // never throw into the page
    }
  };
  document.addEventListener("click", onClick, true);
  document.addEventListener("auxclick", onClick, true);
}
