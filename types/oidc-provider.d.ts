// `oidc-provider` (the tests' loopback OpenID provider, test/helpers/oidc-provider.ts) ships no
// types: what the helper uses of it.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface KoaContext {
    path: string;
    status: number;
    body: unknown;
  }

  interface Interaction {
    uid: string;
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, unknown>;
    session?: { accountId: string };
    grantId?: string;
  }

  interface Grant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    save(): Promise<string>;
  }

  export interface Configuration {
    clients?: Record<string, unknown>[];
    pkce?: { required?: (ctx: unknown, client: unknown) => boolean };
    conformIdTokenClaims?: boolean;
    claims?: Record<string, string[]>;
    features?: Record<string, unknown>;
    interactions?: { url: (ctx: unknown, interaction: Interaction) => string };
    cookies?: { keys?: string[] };
    ttl?: Record<string, number>;
    findAccount?: (ctx: unknown, id: string) => Promise<{ accountId: string; claims: () => Record<string, unknown> } | undefined>;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    Grant: { new (init: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> };
  }
}
