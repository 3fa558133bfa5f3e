/**
 * What a click on a link records (tracker/src/links.ts, the code the `t.js?track` part runs):
 * outbound links by their origin only, downloads by their path (host/path off-site), the
 * default extension list and its override, and nothing for other links or schemes.
 */
import { describe, expect, it } from "vitest";
import { DOWNLOAD_EXTENSIONS, linkClick, linkOptions } from "../../tracker/src/links";

const page = "https://shop.test/blog/post?x=1";
const both = linkOptions("outbound downloads 404", null);

describe("link clicks", () => {
  it("reads data-track and data-download-extensions", () => {
    expect(DOWNLOAD_EXTENSIONS).toBe("pdf zip dmg exe docx xlsx pptx csv mp3 mp4");
    expect(both).toEqual({ outbound: true, downloads: true, extensions: DOWNLOAD_EXTENSIONS.split(" ") });
    expect(linkOptions("outbound", ".EPUB, mobi")).toEqual({ outbound: true, downloads: false, extensions: ["epub", "mobi"] });
    expect(linkOptions(null, null)).toMatchObject({ outbound: false, downloads: false });
  });

  it("records an outbound link by its origin only: no path, query or fragment leaves", () => {
    expect(linkClick("https://other.example:8443/path/secret?token=1#x", page, both)).toEqual({
      name: "Outbound Link: Click",
      props: { url: "https://other.example:8443" },
    });
    // Another scheme or port is another origin; the same origin is no outbound link.
    expect(linkClick("http://shop.test/x", page, both)).toEqual({
      name: "Outbound Link: Click",
      props: { url: "http://shop.test" },
    });
    expect(linkClick("/about", page, both)).toBeNull();
    expect(linkClick("https://shop.test/about", page, both)).toBeNull();
  });

  it("records a download by its path on this site, host/path on another, and once (as a download) when both", () => {
    expect(linkClick("/files/Report.PDF?v=2", page, both)).toEqual({
      name: "File Download",
      props: { file: "/files/Report.PDF" },
    });
    expect(linkClick("../media/talk.mp4", page, both)).toEqual({ name: "File Download", props: { file: "/media/talk.mp4" } });
    expect(linkClick("https://cdn.example/pack.zip#top", page, both)).toEqual({
      name: "File Download",
      props: { file: "cdn.example/pack.zip" },
    });
    expect(linkClick("/files/report.pdf.html", page, both)).toBeNull();
    expect(linkClick("/files/notpdf", page, both)).toBeNull();
  });

  it("follows the options: an override replaces the list; each kind only when asked for", () => {
    const epub = linkOptions("downloads", "epub");
    expect(linkClick("/book.epub", page, epub)).toEqual({ name: "File Download", props: { file: "/book.epub" } });
    expect(linkClick("/report.pdf", page, epub)).toBeNull();
    expect(linkClick("https://other.example/", page, epub)).toBeNull();
    const outbound = linkOptions("outbound", null);
    expect(linkClick("/report.pdf", page, outbound)).toBeNull();
    expect(linkClick("https://cdn.example/report.pdf", page, outbound)).toEqual({
      name: "Outbound Link: Click",
      props: { url: "https://cdn.example" },
    });
  });

  it("ignores links that navigate nowhere over http(s)", () => {
    for (const href of [
      "mailto:a@shop.test",
      "tel:+100",
      "javascript:void(0)",
      "data:text/plain,x.pdf",
      "ftp://files.example/a.zip",
      "http://[",
    ]) {
      expect(linkClick(href, page, both), href).toBeNull();
    }
  });
});
