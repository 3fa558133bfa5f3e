/**
 * Where people sign in on Wren's loopback defaults: a loopback IP address is no valid passkey
 * relying party id, so the invitation links, the relying party and the writes' Origin check use
 * `localhost` for it (lib/public-url.ts peopleUrl); any other public URL is kept as it is.
 */
import { describe, expect, it } from "vitest";
import { requireSameOrigin } from "../../worker/api/auth";
import { relyingParty } from "../../worker/domain/people/passkeys";
import { invitationLink } from "../../worker/domain/people/invitations";
import { peopleUrl } from "../../worker/lib/public-url";

const write = (origin: string | null) =>
  new Request("http://127.0.0.1:8787/api/v1/people", { method: "POST", headers: origin ? { origin } : {} });
const refusal = (fn: () => void) => {
  try {
    fn();
    return null;
  } catch (error) {
    return (error as { status: number }).status;
  }
};

describe("the URL people sign in at", () => {
  it("spells a loopback IP address localhost and keeps any other host", () => {
    expect(peopleUrl("http://127.0.0.1:8787")).toBe("http://localhost:8787");
    expect(peopleUrl("http://[::1]:9000/")).toBe("http://localhost:9000");
    expect(peopleUrl("https://wren.example.com")).toBe("https://wren.example.com");
    expect(peopleUrl("http://10.0.0.5:8787")).toBe("http://10.0.0.5:8787");
  });

  it("gives the loopback defaults a relying party and invitation links a browser accepts", () => {
    expect(relyingParty({})).toEqual({ id: "localhost", origin: "http://localhost:8787", name: "Wren" });
    expect(relyingParty({ WREN_PUBLIC_URL: "https://wren.example.com" })).toEqual({
      id: "wren.example.com",
      origin: "https://wren.example.com",
      name: "Wren",
    });
    expect(invitationLink("http://127.0.0.1:8787", "TOKEN")).toBe("http://localhost:8787/dashboard/invite#TOKEN");
  });

  it("takes a signed-in write from the public origin or its localhost spelling, and from nowhere else", () => {
    const env = { WREN_PUBLIC_URL: "http://127.0.0.1:8787" };
    expect(refusal(() => requireSameOrigin(write("http://127.0.0.1:8787"), env))).toBeNull();
    expect(refusal(() => requireSameOrigin(write("http://localhost:8787"), env))).toBeNull();
    expect(refusal(() => requireSameOrigin(write("http://localhost:9999"), env))).toBe(403);
    expect(refusal(() => requireSameOrigin(write("https://evil.example"), env))).toBe(403);
    expect(refusal(() => requireSameOrigin(write(null), env))).toBe(403);
    // A host name is kept: its localhost spelling is another origin.
    const named = { WREN_PUBLIC_URL: "https://wren.example.com" };
    expect(refusal(() => requireSameOrigin(write("http://localhost:8787"), named))).toBe(403);
  });
});
