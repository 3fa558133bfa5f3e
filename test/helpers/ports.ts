/** A TCP port that was free a moment ago on 127.0.0.1: the same helper `wren start` uses. */
export { freeLoopbackPort as freePort } from "../../cli/api-socket";
