/** One stack per test file, with an admin client and helpers to make keys, sites and goals. */
import { client, type Call } from "../helpers/http";
import { startStack, type Stack } from "../helpers/stack";

export interface ApiFixture {
  stack: Stack;
  admin: Call;
  makeKey(scopes: string[], sites?: string[] | null, extra?: Record<string, unknown>): Promise<{ id: string; key: string; call: Call }>;
  makeSite(domain: string, name?: string): Promise<{ id: string; s2s_token: string; domain: string }>;
  makeGoal(siteId: string, body?: Record<string, unknown>): Promise<{ id: string }>;
}

let counter = 0;

export async function apiFixture(env: NodeJS.ProcessEnv = {}): Promise<ApiFixture> {
  const stack = await startStack({ env });
  const admin = client(stack.url, stack.adminKey);
  return {
    stack,
    admin,
    async makeKey(scopes, sites = null, extra = {}) {
      const res = await admin("POST", "/api/v1/keys", { name: `test ${++counter}`, scopes, sites, ...extra });
      if (res.status !== 201) throw new Error(`key create: ${res.status} ${res.text}`);
      return { id: res.body.id, key: res.body.key, call: client(stack.url, res.body.key) };
    },
    async makeSite(domain, name = domain) {
      const res = await admin("POST", "/api/v1/sites", { name, domain });
      if (res.status !== 201 && res.status !== 200) throw new Error(`site create: ${res.status} ${res.text}`);
      return res.body;
    },
    async makeGoal(siteId, body = { kind: "event", match: `signup-${++counter}` }) {
      const res = await admin("POST", `/api/v1/sites/${siteId}/goals`, body);
      if (res.status !== 201) throw new Error(`goal create: ${res.status} ${res.text}`);
      return res.body;
    },
  };
}
