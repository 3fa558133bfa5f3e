/**
 * One router factory for both workers: errors become problem responses, and a request no
 * route answered becomes a 405 naming the method, with `Allow` listing the methods the path
 * has, or a 404 naming the method and path when the path has none.
 */
import { Router, type IRequest, type RouteEntry, type RouterType } from "itty-router";
import { errorResponse } from "./errors";
import { problem } from "./problem";

export type WrenRouter<Env> = RouterType<IRequest, [Env, ExecutionContext], Response>;

export function createRouter<Env>(): WrenRouter<Env> {
  const router = Router<IRequest, [Env, ExecutionContext]>({
    catch: (error: unknown) => errorResponse(error),
    finally: [(response: Response | undefined, request: IRequest) => response ?? unrouted(request, router.routes)],
  }) as WrenRouter<Env>;
  // workerd builds request.url from the Host header, which the client chooses; itty-router
  // parses it before any handler or catch runs, so an unparsable one would be a bare 500.
  const route = router.fetch.bind(router);
  router.fetch = (request, ...rest) =>
    URL.canParse(request.url)
      ? route(request, ...rest)
      : Promise.resolve(problem(400, "The Host header is not a valid host name and port.", { field: "host" }));
  return router;
}

/**
 * The methods `routes` answer at `pathname`, in the order they were added: what a 405's
 * `Allow` lists. Catch-alls (`.all`) are left out: they answer whatever the method.
 */
export function allowedMethods(routes: RouteEntry[], pathname: string): string[] {
  const methods = routes.filter(([method, pattern]) => method !== "ALL" && pattern.test(pathname)).map(([method]) => method);
  return [...new Set(methods)];
}

/**
 * The answer to a request no handler took: 405 when the path has other methods, else 404 (a
 * path without routes, or one whose handler declined this very method, as the dashboard does
 * for a file it lacks).
 */
function unrouted(request: IRequest, routes: RouteEntry[]): Response {
  const { pathname } = new URL(request.url);
  const allowed = allowedMethods(routes, pathname);
  if (allowed.length === 0 || allowed.includes(request.method))
    return problem(404, `No route for ${request.method} ${pathname}.`);
  return methodNotAllowed(request.method, pathname, allowed);
}

export function methodNotAllowed(method: string, pathname: string, allowed: string[]): Response {
  const allow = allowed.join(", ");
  return problem(405, `${method} is not allowed on ${pathname}; use ${allow}.`, { headers: { allow } });
}

/**
 * For `.all(path, …)` after a path's own methods, where a later catch-all would otherwise take
 * the request (the collector's front door forwards every other path): 405 with `Allow`.
 */
export function refuseOtherMethods<Env>(router: WrenRouter<Env>) {
  return (request: IRequest): Response => {
    const { pathname } = new URL(request.url);
    return methodNotAllowed(request.method, pathname, allowedMethods(router.routes, pathname));
  };
}
