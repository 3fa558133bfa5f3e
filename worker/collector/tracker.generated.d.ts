/**
 * Types of tracker.generated.ts, which tracker/build.ts writes before the worker bundle (it
 * is not committed). This file lets a fresh clone type-check before anything is built.
 */
export declare const TRACKER_CORE: string;
export declare const TRACKER_CORE_ETAG: string;
export declare const TRACKER_VITALS: string;
export declare const TRACKER_VITALS_ETAG: string;
export declare const TRACKER_TRACK: string;
export declare const TRACKER_TRACK_ETAG: string;
