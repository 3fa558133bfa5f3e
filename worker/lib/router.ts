/**
 * One router factory for both workers: errors become problem responses, and a request no
 * route answered becomes a 404 problem naming the method and path.
 */
import { Router, type IRequest, type RouterType } from "itty-router";
import { errorResponse } from "./errors";
import { problem } from "./problem";

export type WrenRouter<Env> = RouterType<IRequest, [Env, ExecutionContext], Response>;

export function createRouter<Env>(): WrenRouter<Env> {
  const router = Router<IRequest, [Env, ExecutionContext]>({
    catch: errorResponse,
    finally: [
      (response: Response | undefined, request: IRequest) =>
        response ?? problem(404, `No route for ${request.method} ${new URL(request.url).pathname}.`),
    ],
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
