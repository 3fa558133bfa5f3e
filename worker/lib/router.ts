/**
 * One router factory for both workers: errors become problem responses, and a request no
 * route answered becomes a 404 problem naming the method and path.
 */
import { Router, type IRequest, type RouterType } from "itty-router";
import { errorResponse } from "./errors";
import { problem } from "./problem";

export type WrenRouter<Env> = RouterType<IRequest, [Env, ExecutionContext], Response>;

export function createRouter<Env>(): WrenRouter<Env> {
  return Router<IRequest, [Env, ExecutionContext]>({
    catch: errorResponse,
    finally: [
      (response: Response | undefined, request: IRequest) =>
        response ?? problem(404, `No route for ${request.method} ${new URL(request.url).pathname}.`),
    ],
  }) as WrenRouter<Env>;
}
