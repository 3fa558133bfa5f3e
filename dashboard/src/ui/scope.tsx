/** Screens a key's scopes cannot use say which scope they need, instead of failing. */
import type { ComponentChildren } from "preact";
import type { Scope } from "../api/client";
import { hasScope } from "../state/session";
import { NeedsScopeNotice } from "./states";

/** Shows `children` when the key holds one of `scopes`, else names the scope it needs. */
export function RequiresScope({ scopes, children }: { scopes: readonly Scope[]; children: ComponentChildren }) {
  return scopes.some(hasScope) ? <>{children}</> : <NeedsScopeNotice scope={scopes.join(" or ")} />;
}
